package enginetest

import (
	"context"
	"sync"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// FakeRunner is an engine.Runner that runs nothing: Run answers from
// Outcome and remembers each request. It is safe for concurrent use; Outcome
// may be called from several goroutines at once.
type FakeRunner struct {
	// Outcome answers Run; nil means exit 0 with no output. It must honour
	// ctx like any Runner.
	Outcome func(ctx context.Context, req engine.RunRequest) (events.ExecOutcome, error)
	// Unavailable, when non-nil, is what Check returns: no sandbox here.
	Unavailable error

	mu   sync.Mutex
	runs []engine.RunRequest
}

// Check returns Unavailable.
func (r *FakeRunner) Check(ctx context.Context, req engine.RunRequest) error {
	return r.Unavailable
}

// Run records req and returns Outcome's answer. Like a real runner it does
// not run a plan Check refused: it reports the refusal as the outcome.
func (r *FakeRunner) Run(ctx context.Context, req engine.RunRequest) (events.ExecOutcome, error) {
	r.mu.Lock()
	r.runs = append(r.runs, req)
	r.mu.Unlock()
	if r.Unavailable != nil && req.Sandbox.Sandboxed() {
		return events.ExecOutcome{ExitCode: -1, SandboxError: r.Unavailable.Error()}, nil
	}
	if r.Outcome == nil {
		return events.ExecOutcome{}, ctx.Err()
	}
	return r.Outcome(ctx, req)
}

// Runs returns the requests run so far, in the order Run was called.
func (r *FakeRunner) Runs() []engine.RunRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]engine.RunRequest(nil), r.runs...)
}
