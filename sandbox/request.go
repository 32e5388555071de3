package sandbox

import (
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/proctree"
	"github.com/docket-engine/docket/sandbox/stubs"
)

// Plan modes: the events.SandboxMode values, under this package's names.
const (
	ModeReadOnly       = events.SandboxReadOnly
	ModeWorkspaceWrite = events.SandboxWorkspaceWrite
	ModeNone           = events.SandboxNone
)

// Defaults used when the corresponding Request field is zero.
const (
	DefaultKillGrace = 2 * time.Second
	DefaultOutputCap = 1 << 20
	// drainDelay bounds how long output is still read after the command
	// exited, when a process that escaped the group keeps a pipe open.
	drainDelay = 500 * time.Millisecond
)

// Request describes one process to run.
type Request struct {
	// Argv is the command; Argv[0] is looked up in the command's PATH.
	Argv []string
	// Cwd is the working directory; empty means the caller's.
	Cwd string
	// Env is the command's environment; nil inherits os.Environ(). Either
	// way names containing KEY, SECRET, TOKEN or PASSWORD are removed unless
	// KeepSecretEnv is set.
	Env []string
	// KeepSecretEnv keeps variables that look like secrets.
	KeepSecretEnv bool
	// Plan is what the process may do; Mode "none" runs it unsandboxed.
	Plan events.SandboxPlan
	// Timeout, when positive, ends the command: SIGTERM, then SIGKILL
	// after KillGrace, to its process group, and to its whole tree (see
	// proctree) when it runs unsandboxed.
	Timeout time.Duration
	// KillGrace is the time between SIGTERM and SIGKILL; zero means DefaultKillGrace.
	KillGrace time.Duration
	// OutputCap is how many bytes of stdout, of stderr and of the interleaved
	// output are kept (head and tail); zero means DefaultOutputCap.
	OutputCap int
	// OnOutput, when set, receives every chunk as it arrives (uncapped),
	// from one goroutine at a time; stream is "stdout" or "stderr".
	OnOutput func(stream string, chunk []byte)
	// HelperPath is the binary started as the sandbox helper; empty means
	// DefaultHelperPath(). It must call helper.Main (package sandbox/helper) when IsHelper(os.Args).
	HelperPath string
	// Caps, when set, is used instead of probing the machine again.
	Caps *Capabilities
	// Stubs, when set, keeps the stubs (empty read-only directories) made
	// for missing protected paths (see package stubs) until its Close,
	// instead of making and removing them on every run: all of them, or,
	// when StubsIn is set, only those directly in one of its directories.
	Stubs *stubs.Keeper
	// StubsIn, when set, limits Stubs to the protected paths directly in
	// one of these directories (DIR/.git, not DIR/sub/.git); the others
	// are made and removed per run. A session passes its shared temporary
	// roots (/tmp, $TMPDIR): an empty read-only .git left there between
	// calls is in nobody's way, whereas one left in the workspace would be
	// in the way of the user's own `git init`.
	StubsIn []string
	// StubRecords, when set, is a directory no sandboxed command can write
	// (docket keeps it under $DOCKET_HOME) where each stub made for this
	// run is recorded until it is removed, so that stubs.RemoveLeft can
	// clean up after a docket that was killed, and a run that did not make
	// a stub knows another docket run did.
	StubRecords string
	// RecordsCheck, when set, remembers that StubRecords passed the check
	// against this plan's roots (StubRecordsCheck), so that a session
	// resolves those paths once per plan rather than on every run; nil
	// checks on every run.
	RecordsCheck *StubRecordsCheck
	// GitWalks, when set, keeps the walk for git directories below the
	// writable roots between runs (see gitwalk.Cache) instead of walking on
	// every run. A session keeps one and closes it at its end.
	GitWalks *gitwalk.Cache
	// Launcher starts the sandboxed command: the session's *Servers, or
	// PerCall (a helper for this call); nil means PerCall. See Launcher.
	Launcher Launcher
	// Bridge serves the egress proxy for a plan with Egress set; such a
	// plan without one is refused.
	Bridge Bridge
	// Gate, when set, holds the command back until it opens: Run prepares
	// the call meanwhile (see Gate). Nil starts the command as soon as
	// the call is ready.
	Gate *Gate

	// trace records the phases of a sandboxed start when TraceEnv is set.
	trace *proto.Tracer
	// tree adjusts how an unsandboxed command's processes are held (see
	// proctree); the zero value takes the strongest mechanism. Tests set
	// it to show what the process group alone lets escape.
	tree proctree.Options
	// Stdin, when non-nil, is written to the command's standard input (a
	// hook reads the call it judges there); nil means /dev/null.
	Stdin []byte
}

func (r Request) killGrace() time.Duration {
	if r.KillGrace > 0 {
		return r.KillGrace
	}
	return DefaultKillGrace
}

func (r Request) outputCap() int {
	if r.OutputCap > 0 {
		return r.OutputCap
	}
	return DefaultOutputCap
}
