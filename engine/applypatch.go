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

// patchText returns the patch of a call, however it was sent.
func patchText(c Call) (string, error) {
	if c.Kind != model.ToolFunction {
		return c.Payload, nil
	}
	var a struct {
		Input *string `json:"input"`
	}
	if err := json.Unmarshal([]byte(c.Payload), &a); err != nil || a.Input == nil {
		return "", errors.New(`apply_patch called as a function needs {"input": "<patch text>"}`)
	}
	return *a.Input, nil
}

// WritePaths lists the absolute paths the call would write (adds, updates,
// deletes, move targets), in order, without duplicates; none for a call
// that does not parse. The engine resolves them on disk when the response
// arrives and records where they lead.
func (ApplyPatchTool) WritePaths(c Call, cwd string) []string {
	text, err := patchText(c)
	if err != nil {
		return nil
	}
	p, err := patch.Parse(text)
	if err != nil {
		return nil
	}
	paths, _ := patchPaths(p, cwd)
	return paths
}

func patchPaths(p *patch.Patch, cwd string) ([]string, []FileChange) {
	var paths []string
	var changes []FileChange
	seen := map[string]bool{}
	addPath := func(path string) {
		if !seen[path] {
			seen[path] = true
			paths = append(paths, path)
		}
	}
	for _, ch := range p.Paths(cwd) {
		addPath(ch.Path)
		changes = append(changes, FileChange{Path: ch.Path, Kind: string(ch.Kind)})
		if ch.MovePath != "" {
			addPath(ch.MovePath)
			changes = append(changes, FileChange{Path: ch.MovePath, Kind: string(patch.KindAdd), MovedFrom: ch.Path})
		}
	}
	return paths, changes
}

// Prepare parses the patch and decides its requirement from where its
// paths really lead, as the engine resolved and recorded them. Whether the
// hunks apply is checked by the helper before it writes anything, so the
// decision depends on the patch text and the recorded resolutions alone.
func (ApplyPatchTool) Prepare(c Call, env *Env) (*PreparedCall, error) {
	text, err := patchText(c)
	if err != nil {
		return nil, err
	}
	return preparePatch(c, env, text, env.Cwd)
}

// AcceptsKind: apply_patch is a custom tool, and CLI.md also promises the
// function form {"input": PATCH} (Codex's JSON apply_patch tool).
func (ApplyPatchTool) AcceptsKind(k model.ToolKind) bool {
	return k == model.ToolCustom || k == model.ToolFunction
}

// preparePatch prepares the patch text of a call (the apply_patch tool's,
// or one the shell tool intercepted) with relative paths read against cwd.
func preparePatch(c Call, env *Env, text, cwd string) (*PreparedCall, error) {
	p, err := patch.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("invalid patch: %w", err)
	}
	paths, changes := patchPaths(p, cwd)
	keys := make([]string, len(paths))
	real := make([]string, len(paths))
	for i, path := range paths {
		keys[i] = env.Decider.PatchKey(path)
		real[i] = env.RealPath(c.ID, path)
	}
	return &PreparedCall{
		ApprovalKind: events.ApprovalPatch,
		Command:      []string{"apply_patch"},
		Cwd:          cwd,
		Keys:         keys,
		Paths:        paths,
		Changes:      changes,
		Requirement:  env.Decider.PatchRequirement(real),
		Retryable:    true,
		Start:        events.ExecStarted{Tool: "apply_patch", Argv: []string{"apply_patch"}, Cwd: cwd, Input: text, TimeoutMs: DefaultShellTimeoutMs},
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
