package sandbox

import "github.com/docket-engine/docket/sandbox/layers"

// The layer names this package reports, under the names its code uses;
// package layers holds them and their words, so that a reader of journals
// can explain a run without linking the sandbox. The git directory layers
// are in gitdirs.go.
const (
	LayerSeccomp     = layers.Seccomp
	LayerCaps        = layers.Caps
	LayerUserNS      = layers.UserNS
	LayerMountNS     = layers.MountNS
	LayerPIDNS       = layers.PIDNS
	LayerNetNS       = layers.NetNS
	LayerIPCNS       = layers.IPCNS
	LayerUTSNS       = layers.UTSNS
	LayerDevpts      = layers.Devpts
	LayerUnixSockets = layers.UnixSockets
	LayerRlimit      = layers.Rlimit
	LayerCgroup      = layers.Cgroup
)
