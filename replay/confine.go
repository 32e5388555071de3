package replay

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// confinedRunner is live replay's runner: whatever plan the engine chose
// (the recorded session may have run a command without a sandbox, or with
// the network, or with writable roots beyond the workspace), the command
// runs under the sandbox with the scratch area as its only writable root
// and the network off. A run the sandbox cannot confine does not run. MCP
// tool calls reach servers outside the scratch area, so they are not made.
type confinedRunner struct {
	inner     engine.Runner
	root      string // the scratch area: the only writable root
	from, to  string // the recorded workspace and its scratch copy
	readOnly  []string
	limits    events.ResourceLimits
	protected bool
}

// errNotReplayed is the outcome of an MCP tool call in live replay.
var errNotReplayed = errors.New("live replay does not make MCP tool calls: they reach outside the scratch area")

func (r *confinedRunner) confine(req engine.RunRequest) engine.RunRequest {
	req.Sandbox = events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, WritableRoots: []string{r.root},
		ReadOnlySubpaths: r.readOnly, Network: false, RequireProtectedPaths: r.protected, Limits: r.limits}
	if rel, err := filepath.Rel(r.from, req.Cwd); err == nil && events.Within(req.Cwd, r.from) {
		req.Cwd = filepath.Join(r.to, rel)
	}
	return req
}

// Check says whether the confining sandbox can be had here.
func (r *confinedRunner) Check(ctx context.Context, req engine.RunRequest) error {
	if req.Server != "" {
		return nil
	}
	return r.inner.Check(ctx, r.confine(req))
}

// Run runs the call confined, or not at all.
func (r *confinedRunner) Run(ctx context.Context, req engine.RunRequest) (events.ExecOutcome, error) {
	if req.Server != "" {
		return events.ExecOutcome{CallID: req.CallID, Attempt: req.Attempt, ExitCode: -1, Output: errNotReplayed.Error()}, nil
	}
	c := r.confine(req)
	// The engine checks only plans it chose sandboxed; this one always is.
	if err := r.inner.Check(ctx, c); err != nil {
		return events.ExecOutcome{CallID: req.CallID, Attempt: req.Attempt, ExitCode: -1, SandboxError: err.Error()}, nil
	}
	return r.inner.Run(ctx, c)
}
