package engine

import (
	"context"
	"errors"
	"time"

	"github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
)

// Log is where the engine writes records: a *journal.Journal in production,
// replay's comparing log when verifying, enginetest.MemLog in tests.
// enginetest.TestLog checks an implementation against this contract.
//
// The engine serialises calls to Append, but calls Commit without holding
// that lock: an implementation MUST be safe for Append concurrent with
// Commit, and MAY block one while the other runs.
type Log interface {
	// Append encodes body as the next record, stamped at and filed under
	// callID ("" for session-level records), and returns it.
	//
	// Append MUST give seqs that increase by one from the log's next seq (1
	// for a new log, one past the last record for a reopened one) with no
	// gaps, MUST keep the record exactly as returned (a later read yields
	// the same bytes), and MUST NOT consume a seq when it returns an error.
	// Append MAY buffer: the record need not survive a crash until a Commit
	// that began after Append returned has returned nil. Append MUST NOT
	// reorder records.
	Append(at time.Time, callID string, body any) (events.Record, error)
	// Commit makes every record appended before the call durable: after it
	// returns nil, a crash (SIGKILL, power loss) MUST leave all of them
	// readable, in order. Records appended while Commit runs MAY be included.
	// On error nothing is acknowledged; the records MUST stay pending, and a
	// later Commit MAY succeed. With nothing pending Commit SHOULD do no I/O.
	// Commit is the engine's write-ahead point: the engine starts a process
	// only after the Commit covering its exec_started record returned nil.
	Commit() error
}

// DurableLog is a Log that says how far its commits reached. Commit may
// cover records appended while it ran; without this the engine credits a
// commit only with what was appended before it began, and a parallel call
// whose record another call's commit already carried commits again (one
// more fsync, nothing lost). The bbolt journal implements it.
type DurableLog interface {
	Log
	// Durable returns the seq of the last record a Commit that returned
	// nil covered. It MUST NOT exceed what a crash now would leave.
	Durable() uint64
}

// PathResolver says where paths really lead on disk (symlinks, ".."), for
// the decisions that depend on it (apply_patch's requirement). The engine
// asks once per model response and records the answer in it; replay
// substitutes the recorded answers.
type PathResolver interface {
	// Resolve fills Real for each entry of want (call id and path) of the
	// response to model request number request of turn turnID.
	Resolve(turnID string, request int, want []events.ResolvedPath) []events.ResolvedPath
	// RealPath resolves one path of a call whose response recorded no
	// resolution (journals written before resolutions were recorded).
	RealPath(path string) string
}

// DiskPaths resolves paths on this machine's disk.
type DiskPaths struct{}

// Resolve resolves each path with workspace.RealPath.
func (DiskPaths) Resolve(_ string, _ int, want []events.ResolvedPath) []events.ResolvedPath {
	out := make([]events.ResolvedPath, len(want))
	for i, w := range want {
		w.Real = workspace.RealPath(w.Path)
		out[i] = w
	}
	return out
}

// RealPath resolves p with workspace.RealPath.
func (DiskPaths) RealPath(p string) string { return workspace.RealPath(p) }

// Clock tells the time. Replay substitutes recorded readings.
//
// Now is called from several goroutines and MUST be safe for concurrent use.
// It MUST NOT block, and the times it returns are recorded as they are, so
// a replacement MUST return what replay can reproduce (replay substitutes a
// fixed clock). Decisions never read the clock (DESIGN §1).
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// ApprovalRequest is what an Approver is asked.
type ApprovalRequest struct {
	events.ApprovalRequested
	// Parsed is the command split into plain commands when it is a simple
	// shell script, for display.
	Parsed [][]string
	// What a "yes" means, for a prompt to say plainly. They are derived
	// from the journaled request and the session's policy, so they are
	// not journaled themselves.
	//
	// Unsandboxed: approving runs the call without the sandbox (a retry
	// after a denial, an approved escalation request, a policy with no
	// sandbox).
	Unsandboxed bool
	// RetryUnsandboxed: the call runs in the sandbox, but approving it now
	// also lets Docket re-run it without the sandbox, unasked, if the
	// sandbox blocks it.
	RetryUnsandboxed bool
	// ModelJustification is set when Reason is the model's own words (its
	// escalation justification), which a prompt must label as the model's,
	// never present as Docket's.
	ModelJustification bool
	// Patch is the patch text of an apply_patch request, so the prompt can
	// show the change itself and not only the file names.
	Patch string
	// Agent is set when a subagent asks: its name (NAME/CHILD for nested
	// ones), and AgentSession its session id. The request is the child's,
	// put to the parent's approver.
	Agent, AgentSession string
	// Network is set for a request of kind network: a host a running
	// call's command asked the egress proxy for, which no rule covers. Its
	// answer is journaled as a network_decision, not a decision record:
	// approved allows once, approved_for_session for the session,
	// approved_execpolicy_amendment always (saved to the profile).
	Network *NetworkQuestion
}

// Answer is an Approver's decision on one request.
type Answer struct {
	Decision  events.ReviewDecision
	Source    events.DecisionSource
	Amendment []string
	// Feedback is what the user typed with a denial: it is journaled with
	// the decision and goes back to the model as the call's output.
	Feedback string
	// At is when the decision was made; zero means now (the engine's clock).
	// Replay sets it from the journal.
	At time.Time
}

// ErrNoDecision is returned by an Approver that has no answer to give now
// (no terminal and no --decisions left): the session parks.
var ErrNoDecision = errors.New("no decision available")

// Approver answers approval requests: the terminal, --decisions, a client,
// replay's recorded decisions, enginetest.ScriptedApprover in tests.
//
// The request is already durable in the journal when Decide is called, and
// the engine records the answer itself; Decide MUST NOT run the call, write
// the journal or call back into the Session. First-phase requests come in
// call order, but a retry prompt of one parallel call can overlap another's
// request, so Decide MUST be safe for concurrent use.
//
// Decide MUST return promptly once ctx is done (the engine cancels it on an
// abort and after approval_timeout_sec), with an error that wraps
// ctx.Err(); it MUST NOT turn a cancellation or a time-out into an Answer,
// least of all a denial (DESIGN §2 invariant 5: the engine records a
// time-out as timed_out, never as the user's "denied"). When it has no
// answer to give now and none will come (no terminal, --decisions used up)
// it MUST return ErrNoDecision, which parks the session: the request stays
// open in the journal and a resumed session asks again. Any other error
// fails the turn.
//
// An Answer's Decision MUST be one of the events.ReviewDecision values
// other than TimedOut (the engine's own), and its Source says who decided;
// only an answer that really came from a person may carry SourceUser or
// SourceTerminal (or, through an MCP client, SourceMCPElicitation), because
// unsandboxed runs are justified by it. Amendment is
// read only with ApprovedExecpolicyAmendment.
type Approver interface {
	Decide(ctx context.Context, req ApprovalRequest) (Answer, error)
}

// RunRequest is one execution: the write-ahead record itself, plus a
// callback for streamed output.
type RunRequest struct {
	events.ExecStarted
	OutputCap int
	OnOutput  func(stream string, chunk []byte)
	// Bridge serves the session's egress proxy to a call whose plan says
	// Egress (sandbox.Request.Bridge); nil otherwise.
	Bridge sandbox.Bridge
}

// Runner executes a call: a process under a sandbox plan, a patch write,
// or an MCP tool call. ProcessRunner is the real one; replay substitutes
// recorded outcomes; enginetest.FakeRunner answers from a table in tests.
// Calls of one turn run in parallel: Check and Run MUST be safe for
// concurrent use.
type Runner interface {
	// Check says whether req.Sandbox can be enforced here, before anything
	// is recorded as running. The engine calls it only for a sandboxed plan.
	// It MUST NOT start anything. A non-nil error means "not here": the call
	// is denied (sandbox_unavailable) or, on a retry, finished, and never run
	// with a weaker sandbox (fail closed).
	Check(ctx context.Context, req RunRequest) error
	// Run executes the call its write-ahead record describes. The engine has
	// made req.ExecStarted durable before calling it; Run MUST execute
	// exactly what that record says (argv, cwd, sandbox plan, MCP server and
	// tool) and nothing else, and MUST NOT weaken the plan: when the plan
	// cannot be enforced it MUST NOT run the command, and reports that in
	// ExecOutcome.SandboxError.
	//
	// The outcome is the command's result: a non-zero exit, a signal, a
	// time-out or a sandbox refusal are outcomes, not errors. Run returns an
	// error only when it could not say what happened; if ctx is done by
	// then, the engine records the call as interrupted with "outcome
	// unknown" and never re-runs it. Run MUST return once ctx is done,
	// having stopped what it started. The engine sets CallID and Attempt and
	// classifies sandbox denials (ExecOutcome.Denial) itself: Run need not
	// fill them. req.OnOutput, when non-nil, MAY be called with chunks of
	// output while the call runs, never after Run returns.
	Run(ctx context.Context, req RunRequest) (events.ExecOutcome, error)
}

// Preparer is a Runner that can prepare a call while the engine makes its
// write-ahead record durable: the sandbox's set-up for the call (its walk
// update, its stubs, its confined init) may happen before that record is
// on disk, the command itself may not. The engine prepares only calls
// whose record it is about to make durable, after Check.
type Preparer interface {
	// Prepare starts preparing the call req describes and returns at once;
	// ok is false when this call is not prepared early (the engine then
	// calls Run after the durable append, as for any Runner). It MUST NOT
	// start the command before the returned PreparedRun's Start.
	Prepare(ctx context.Context, req RunRequest) (p PreparedRun, ok bool)
}

// PreparedRun is a call being prepared by a Preparer. Exactly one of
// Start and Abandon is called, once.
type PreparedRun interface {
	// Start lets the command start, the write-ahead record being durable,
	// and waits for the outcome: Runner.Run's contract, for the ctx given
	// to Prepare.
	Start() (events.ExecOutcome, error)
	// Abandon ends the call without its command ever starting (the
	// write-ahead record could not be made durable), and returns once
	// everything it set up is undone.
	Abandon()
}
