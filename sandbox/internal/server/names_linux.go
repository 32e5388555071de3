package server

import "github.com/docket-engine/docket/sandbox/layers"

// The layers a command's init reports, under the names the helper's code
// uses too.
const (
	LayerCaps        = layers.Caps
	LayerSeccomp     = layers.Seccomp
	LayerUserNS      = layers.UserNS
	LayerMountNS     = layers.MountNS
	LayerPIDNS       = layers.PIDNS
	LayerNetNS       = layers.NetNS
	LayerIPCNS       = layers.IPCNS
	LayerUTSNS       = layers.UTSNS
	LayerDevpts      = layers.Devpts
	LayerUnixSockets = layers.UnixSockets
	LayerRlimit      = layers.Rlimit
)
