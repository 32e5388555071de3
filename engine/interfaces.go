package engine

import (
	"context"
	"errors"
	"time"

	"github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
)

// Log is where the engine writes records: a journal.Journal, or replay's
// comparing log. Append buffers; Commit makes everything appended durable.
type Log interface {
	Append(at time.Time, callID string, body any) (events.Record, error)
	Commit() error
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
