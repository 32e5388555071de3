package confine

import (
	"slices"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
)

// The helper protocol's names on the confined side (package proto), and
// the layers this side reports.

type (
	// Spec is the call as the helper and the server read it.
	Spec       = proto.Spec
	reportLine = proto.ReportLine
	tracer     = proto.Tracer
)

const (
	reportLayers     = proto.ReportLayers
	reportSetupError = proto.ReportSetupError
	reportExecError  = proto.ReportExecError
	reportExit       = proto.ReportExit
	reportInitError  = proto.ReportInitError

	setupFD        = proto.SetupFD
	exitFD         = proto.ExitFD
	binaryFD       = proto.BinaryFD
	binaryExecPath = proto.BinaryExecPath

	exitSetup     = proto.ExitSetup
	exitCannotRun = proto.ExitCannotRun
	exitNotFound  = proto.ExitNotFound

	layerProtectedPaths = proto.LayerProtectedPaths
)

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
	LayerEgress      = layers.Egress
	LayerUnixSockets = layers.UnixSockets
	LayerRlimit      = layers.Rlimit
	LayerHidden      = layers.Hidden
)

func cloexecFrom(fd int) error               { return proto.CloexecFrom(fd) }
func lifelineDisabled() bool                 { return proto.LifelineDisabled() }
func within(p, root string) bool             { return events.Within(p, root) }
func underAny(p string, roots []string) bool { return events.WithinAny(p, roots) }
func contains(list []string, s string) bool  { return slices.Contains(list, s) }
