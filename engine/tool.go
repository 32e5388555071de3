package engine

import (
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
)

// Tool is a handler the router can dispatch a call to.
type Tool interface {
	Spec() model.ToolSpec
	// ParallelSafe reports whether calls of this tool may run concurrently
	// with other calls of the same response.
	ParallelSafe() bool
	// Prepare validates a call and says what running it means. It must be
	// a pure function of the call and the session (no disk, no clock), so
	// replay reaches the same plan. An error is an invalid call: the model
	// is told, nothing runs.
	Prepare(c Call, s *Env) (*PreparedCall, error)
}

// PathWriter is a tool whose calls write files at paths known before they
// run (apply_patch). The engine resolves those paths on disk when the
// response arrives and records the resolutions in model_response, so that
// Prepare can judge where they really lead without reading the disk.
type PathWriter interface {
	WritePaths(c Call, cwd string) []string
}

// Env is what a tool may consult while preparing a call. Its slices are
// the session's own, shared: a tool reads them and copies what it would
// change.
type Env struct {
	Cwd     string
	Config  events.SessionConfig
	Plan    events.SandboxPlan
	Decider *Decider
	// RealPath returns where a path of a call really leads, as recorded
	// when the call's response arrived.
	RealPath func(callID, path string) string
	// SessionID is the session's id (spawn_agent derives its child's id).
	SessionID string
	// Agents is the session's standing for spawn_agent's bounds.
	Agents AgentLimits
	// Process looks up a long-lived process of the session by session id
	// (write_stdin), as the session's records tell it.
	Process func(id int) (ProcessInfo, bool)
}

// PreparedCall is a call a tool has prepared: what it would do, what
// approval it needs, and how to shape its outcome for the model. (A sandbox
// plan is events.SandboxPlan; this is not one.)
type PreparedCall struct {
	ApprovalKind events.ApprovalKind
	Command      []string
	Cwd          string
	Keys         []string
	Paths        []string
	Changes      []FileChange
	Requirement  policy.Requirement
	// Escalated: the model asked to run without the sandbox.
	Escalated bool
	// Justification is the model's own reason for asking, shown to the
	// user labelled as the model's.
	Justification string
	// OutOfProcess: the tool runs outside Docket's sandbox by nature (MCP).
	OutOfProcess bool
	// Retryable: a sandbox denial may be retried without the sandbox.
	Retryable bool
	// Start is the write-ahead record's template (CallID, Attempt and
	// Sandbox are filled by the orchestrator).
	Start events.ExecStarted
	// Shape turns an outcome into the text the model sees and whether the
	// call succeeded.
	Shape func(events.ExecOutcome) (string, bool)
	// Plan, when set, is the sandbox plan the call runs under whatever
	// the session's: write_stdin reaches a process that runs under the plan
	// it was approved with.
	Plan *events.SandboxPlan
	// Notice fields for clients.
	Server, MCPTool, Arguments string
}
