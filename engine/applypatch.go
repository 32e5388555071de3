package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/patch"
	"github.com/docket-engine/docket/events"
)

// ApplyPatchTool edits files with Codex's patch format. The write runs in
// a sandboxed helper process, so the sandbox, not the engine, enforces
// where it may write.
type ApplyPatchTool struct{}

// Spec describes apply_patch as a custom (free-text) tool.
func (ApplyPatchTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: "apply_patch",
		Kind: model.ToolCustom,
		Description: "Edits files. Input is a patch: *** Begin Patch, then *** Add File: PATH (+lines), " +
			"*** Delete File: PATH, or *** Update File: PATH (optional *** Move to: PATH) with @@ hunks of ' ', '-', '+' lines; *** End Patch.",
	}
}

// ParallelSafe: patches run one at a time, in order.
func (ApplyPatchTool) ParallelSafe() bool { return false }

// Prepare parses the patch and decides its requirement from its paths.
// Whether the hunks apply is checked by the helper before it writes
// anything, so the decision depends on the patch text alone.
func (ApplyPatchTool) Prepare(c Call, env *Env) (*Plan, error) {
	text := c.Payload
	if c.Kind == model.ToolFunction {
		var a struct {
			Input *string `json:"input"`
		}
		if err := json.Unmarshal([]byte(c.Payload), &a); err != nil || a.Input == nil {
			return nil, errors.New(`apply_patch called as a function needs {"input": "<patch text>"}`)
		}
		text = *a.Input
	}
	p, err := patch.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("invalid patch: %w", err)
	}
	var paths, keys []string
	var changes []FileChange
	seen := map[string]bool{}
	addPath := func(path string) {
		if !seen[path] {
			seen[path] = true
			paths = append(paths, path)
			keys = append(keys, env.Decider.PatchKey(path))
		}
	}
	for _, ch := range p.Paths(env.Cwd) {
		addPath(ch.Path)
		changes = append(changes, FileChange{Path: ch.Path, Kind: string(ch.Kind)})
		if ch.MovePath != "" {
			addPath(ch.MovePath)
			changes = append(changes, FileChange{Path: ch.MovePath, Kind: string(patch.KindAdd)})
		}
	}
	return &Plan{
		ApprovalKind: events.ApprovalPatch,
		Command:      []string{"apply_patch"},
		Cwd:          env.Cwd,
		Keys:         keys,
		Paths:        paths,
		Changes:      changes,
		Requirement:  env.Decider.PatchRequirement(paths),
		Retryable:    true,
		Start:        events.ExecStarted{Tool: "apply_patch", Argv: []string{"apply_patch"}, Cwd: env.Cwd, Input: text, TimeoutMs: DefaultShellTimeoutMs},
		Shape:        shapePatch,
	}, nil
}

func shapePatch(o events.ExecOutcome) (string, bool) {
	switch {
	case o.SandboxError != "":
		return "The sandbox could not be set up, so the patch was not applied: " + o.SandboxError, false
	case o.Error != "":
		return "The patch could not be applied: " + o.Error, false
	case o.ExitCode == 0:
		return strings.TrimRight(o.Stdout, "\n"), true
	case o.Denial != nil:
		return "The sandbox denied the write: " + o.Denial.Reason + "\n" + strings.TrimRight(o.Stderr, "\n"), false
	}
	return "The patch was not applied (nothing was written): " + strings.TrimRight(o.Stderr, "\n"), false
}
