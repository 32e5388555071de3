package sandbox

import (
	"os"

	"github.com/docket-engine/docket/sandbox/internal/proto"
)

// TraceEnv names the environment variable that turns on the start-up
// trace; see proto.TraceEnv.
const TraceEnv = proto.TraceEnv

type (
	tracer        = proto.Tracer
	serverCommand = proto.ServerCommand
	serverReply   = proto.ServerReply
)

const (
	traceFD          = proto.TraceFD
	serverFD         = proto.ServerFD
	serverReady      = proto.ServerReady
	serverStarted    = proto.ServerStarted
	serverSetupError = proto.ServerSetupError
	serverDone       = proto.ServerDone
)

func openTracer() *tracer                     { return proto.OpenTracer() }
func cloexecFrom(fd int) error                { return proto.CloexecFrom(fd) }
func dupCloexec(f *os.File) (*os.File, error) { return proto.DupCloexec(f) }
