package sandbox

import "github.com/docket-engine/docket/sandbox/internal/proto"

// The helper protocol (the Spec, the report lines, the descriptors, the
// exit codes) is package proto's, which the confined side
// (sandbox/internal/confine, sandbox/internal/server) shares with docket
// without linking this package. These are its names on docket's side.

// Spec is the wire form of one sandboxed call; see proto.Spec.
type Spec = proto.Spec

type (
	namespaces = proto.Namespaces
	callSpec   = proto.CallSpec
	limitsSpec = proto.Limits
	reportLine = proto.ReportLine
)

// HelperArg is the first argument that puts a binary in helper mode.
const HelperArg = proto.HelperArg

// IsHelper reports whether args (os.Args) ask for the sandbox helper.
func IsHelper(args []string) bool { return proto.IsHelper(args) }

const (
	specVersion = proto.Version

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
	faultBuild          = proto.FaultBuild
)

func splitLoaderEnv(env []string) (rest, loader []string) { return proto.SplitLoaderEnv(env) }

func helperArgs(exe string, spec Spec, argv []string) ([]string, error) {
	return proto.Args(exe, spec, argv)
}

func lifelineDisabled() bool { return proto.LifelineDisabled() }
