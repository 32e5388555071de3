package sandbox

// Layers of the file system view the helper reports when it set them up
// (mounts_linux.go); the git directory layers are in gitdirs.go.
const (
	// LayerDevpts: the command got a private devpts instance, so it can
	// open new ptys (script, expect, ssh -t) but reach no pty of the host.
	LayerDevpts = "devpts"
	// LayerUnixSockets: with the network off, every pathname unix socket
	// bound in docket's network namespace when the call started is covered
	// (a read-only /dev/null bound over it) in the command's mount
	// namespace. Landlock refuses connecting to such sockets only from ABI
	// 9 (LANDLOCK_ACCESS_FS_RESOLVE_UNIX); this layer does it on older
	// kernels too. Reported with ":partial" when the list was cut short.
	LayerUnixSockets = "unix-sockets-covered"
)

// fsLayers forecasts the file system layers a plan gets here. The git
// directory layer depends on the plan's roots and is left out.
func (c Capabilities) fsLayers(network bool) []string {
	if !c.Namespaces() {
		return nil
	}
	if network {
		return []string{LayerDevpts}
	}
	return []string{LayerUnixSockets, LayerDevpts}
}
