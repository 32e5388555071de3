package sandbox

import (
	"context"

	"github.com/docket-engine/docket/events"
)

// Launcher is how a sandboxed call's spec becomes a process. There are two,
// and the caller chooses, as a raft node's Transport is chosen by the code
// that builds it:
//
//   - PerCall starts a helper for each call (docket-sandbox-helper, or docket
//     re-executed as one), in namespaces made by clone; one process per
//     call, nothing kept. `docket sandbox` (one call per process) uses it.
//   - *Servers keeps the session's sandbox servers: the plan's namespaces and
//     mount layout built once, each command cloned from there with a PID,
//     mount and IPC namespace, Landlock domain and seccomp filter of its own.
//     The engine uses it for a session's calls and for its hooks.
//
// Both receive the same spec (built once per call from the plan and what
// the host said about it, see specFor) and report the same layers; the
// escape suites run through each. Servers falls back to PerCall where the
// machine cannot give a server its strongest setup (neither root nor user
// namespaces) or a command does not fit one message, so that a call never
// gets a weaker sandbox for being in a session.
//
// A Request's Gate holds the command back: *Servers prepares the call up
// to its confined init and gives the go when the gate opens, PerCall waits
// for it before anything else (see Gate).
//
// The interface is sealed: its method is unexported, so that no launcher
// outside this package can be handed a spec it did not check.
type Launcher interface {
	launch(ctx context.Context, c call) (events.ExecOutcome, error)
}

// call is one sandboxed call as a launcher gets it: the request it came
// from (streams, timeout, placeholders), the command resolved, the
// machine's capabilities, the helper binary, and the spec.
type call struct {
	req    Request
	p      prepared
	caps   Capabilities
	helper string
	spec   Spec
}

// prepared is a Request checked and resolved for launching.
type prepared struct {
	plan events.SandboxPlan
	cwd  string   // absolute working directory
	env  []string // the command's filtered environment
	path string   // the resolved executable
}

// PerCall is the Launcher that starts a helper of its own for each call.
// Its zero value is ready to use.
type PerCall struct{}

// launcherOf is req's launcher; nil means PerCall.
func launcherOf(req Request) Launcher {
	if req.Launcher == nil {
		return PerCall{}
	}
	return req.Launcher
}
