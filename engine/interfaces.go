package engine

import (
	"context"
	"errors"
	"time"

	"github.com/docket-engine/docket/events"
)

// Log is where the engine writes records: a journal.Journal, or replay's
// comparing log. Append buffers; Commit makes everything appended durable.
type Log interface {
	Append(at time.Time, callID string, body any) (events.Record, error)
	Commit() error
}

// Clock tells the time. Replay substitutes recorded readings.
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
}

// Answer is an Approver's decision on one request.
type Answer struct {
	Decision  string // a policy.ReviewDecision spelling
	Source    string // events.Source*
	Amendment []string
	// At is when the decision was made; zero means now (the engine's clock).
	// Replay sets it from the journal.
	At time.Time
}

// ErrNoDecision is returned by an Approver that has no answer to give now
// (no terminal and no --decisions left): the session parks.
var ErrNoDecision = errors.New("no decision available")

// Approver answers approval requests. It must honour ctx: the engine
// cancels it on abort and on approval_timeout_sec.
type Approver interface {
	Decide(ctx context.Context, req ApprovalRequest) (Answer, error)
}

// RunRequest is one execution: the write-ahead record itself, plus a
// callback for streamed output.
type RunRequest struct {
	events.ExecStarted
	OutputCap int
	OnOutput  func(stream string, chunk []byte)
}

// Runner executes a call: a process under a sandbox plan, a patch write,
// or an MCP tool call. Check says, before anything is recorded as running,
// whether the plan can be enforced here (fail closed).
type Runner interface {
	Check(ctx context.Context, req RunRequest) error
	Run(ctx context.Context, req RunRequest) (events.ExecOutcome, error)
}
