package permissions

// Access is what a filesystem rule grants a path.
type Access string

// The filesystem accesses, strictest first.
const (
	// None hides a path: the command cannot read, list or write it.
	None Access = "none"
	// Read lets the command read a path but not change it.
	Read Access = "read"
	// Write lets the command read and change a path.
	Write Access = "write"
)

// strictness orders accesses for ties: the lower, the stricter.
func (a Access) strictness() int {
	switch a {
	case None:
		return 0
	case Read:
		return 1
	default:
		return 2
	}
}

// Built-in profile names, as Codex spells them.
const (
	BuiltinReadOnly   = ":read-only"
	BuiltinWorkspace  = ":workspace"
	BuiltinFullAccess = ":danger-full-access"
)

// Builtins are the built-in profile names in the order they are listed.
func Builtins() []string {
	return []string{BuiltinReadOnly, BuiltinWorkspace, BuiltinFullAccess}
}

// Special filesystem keys of a [permissions.NAME.filesystem] table.
const (
	keyRoot          = ":root"
	keyProjectRoots  = ":project_roots"
	keyTmpdir        = ":tmpdir"
	keyGlobScanDepth = "glob_scan_max_depth"
)

// Profile is one [permissions.NAME] table as the config decodes it. The
// filesystem table mixes accesses, sub-tables (":project_roots") and
// glob_scan_max_depth, so it stays a generic map until Parse.
type Profile struct {
	Filesystem     map[string]any  `toml:"filesystem"`
	WorkspaceRoots map[string]bool `toml:"workspace_roots"`
	Network        *NetworkTable   `toml:"network"`
}

// NetworkTable is [permissions.NAME.network] as the config decodes it.
// The listener keys of Codex's own proxy (proxy_url, socks_url, mitm, ...)
// are accepted and ignored: Docket's proxy is per session, on addresses it
// chooses, and never terminates TLS.
type NetworkTable struct {
	Enabled           *bool             `toml:"enabled"`
	Mode              string            `toml:"mode"`
	Domains           map[string]string `toml:"domains"`
	UnixSockets       map[string]string `toml:"unix_sockets"`
	AllowLocalBinding bool              `toml:"allow_local_binding"`
	EnableSocks5      *bool             `toml:"enable_socks5"`

	ProxyURL                         string `toml:"proxy_url"`
	SocksURL                         string `toml:"socks_url"`
	EnableSocks5UDP                  *bool  `toml:"enable_socks5_udp"`
	AllowUpstreamProxy               *bool  `toml:"allow_upstream_proxy"`
	DangerouslyAllowNonLoopbackProxy *bool  `toml:"dangerously_allow_non_loopback_proxy"`
	MITM                             *bool  `toml:"mitm"`
}

// Mode is the network mode of a profile.
type Mode string

// The network modes.
const (
	// ModeFull lets every method and tunnel through to an allowed host.
	ModeFull Mode = "full"
	// ModeLimited lets only GET, HEAD and OPTIONS through, so only plain
	// HTTP requests the proxy can read: Docket does not terminate TLS, so
	// CONNECT and SOCKS are refused in this mode.
	ModeLimited Mode = "limited"
)
