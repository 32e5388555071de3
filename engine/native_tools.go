package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// The Responses API's own shell and apply_patch tools. Their calls arrive
// as shell_call and apply_patch_call items, not function calls; the router
// names them by these tool names, and they go through the same decisions,
// journal, audit and replay as the function forms.
const (
	NativeShellName      = "shell_call"
	NativeApplyPatchName = "apply_patch_call"
)

// NativeShellTool runs a shell_call: the action's commands, in order, as
// one bash script.
type NativeShellTool struct{}

// Spec offers the Responses API's shell tool ({"type":"shell"}).
func (NativeShellTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: NativeShellName, Kind: model.ToolShell}
}

// ParallelSafe: shell calls may run side by side, as shell's do.
func (NativeShellTool) ParallelSafe() bool { return true }

type nativeShellAction struct {
	Commands        []string `json:"commands"`
	TimeoutMs       int64    `json:"timeout_ms"`
	MaxOutputLength int64    `json:"max_output_length"`
}

// Prepare judges the commands as one `bash -lc` script: the rules,
// known-safe list and approvals see every command of it.
func (NativeShellTool) Prepare(c Call, env *Env) (*PreparedCall, error) {
	if c.Kind != model.ToolShell {
		return nil, fmt.Errorf("%s is the Responses API's shell tool; it was called as a %s tool", NativeShellName, c.Kind)
	}
	var a nativeShellAction
	if err := decodeStrict(c.Payload, &a); err != nil {
		return nil, fmt.Errorf("shell_call action: %w", err)
	}
	if len(a.Commands) == 0 {
		return nil, errors.New("shell_call has no commands")
	}
	for i, cmd := range a.Commands {
		if strings.TrimSpace(cmd) == "" {
			return nil, fmt.Errorf("shell_call command %d is empty", i)
		}
		if strings.IndexByte(cmd, 0) >= 0 {
			return nil, fmt.Errorf("shell_call command %d contains a NUL byte", i)
		}
	}
	if a.TimeoutMs < 0 || a.MaxOutputLength < 0 {
		return nil, fmt.Errorf("shell_call timeout_ms %d, max_output_length %d: want 0 or more", a.TimeoutMs, a.MaxOutputLength)
	}
	argv := []string{"bash", "-lc", strings.Join(a.Commands, "\n")}
	timeout := int64(DefaultShellTimeoutMs)
	if a.TimeoutMs > 0 {
		timeout = a.TimeoutMs
	}
	limit := env.Config.ToolOutputMaxBytes
	if limit <= 0 {
		limit = DefaultOutputMaxBytes
	}
	if a.MaxOutputLength > 0 && a.MaxOutputLength < limit {
		limit = a.MaxOutputLength
	}
	return &PreparedCall{
		ApprovalKind: events.ApprovalExec,
		Command:      argv,
		Cwd:          env.Cwd,
		Keys:         []string{env.Decider.ExecKey(argv, env.Cwd, "")},
		Requirement:  env.Decider.ExecRequirement(argv, false, ""),
		Retryable:    true,
		Start:        events.ExecStarted{Tool: "shell", Argv: argv, Cwd: env.Cwd, TimeoutMs: timeout},
		Shape:        func(o events.ExecOutcome) (string, bool) { return shapeNativeShell(o, limit) },
	}, nil
}

// shellOutput is one entry of a shell_call_output (the provider's
// openai.ShellOutput, which the engine does not import).
type shellOutput struct {
	Stdout  string       `json:"stdout"`
	Stderr  string       `json:"stderr"`
	Outcome shellOutcome `json:"outcome"`
}

type shellOutcome struct {
	Type     string `json:"type"`
	ExitCode *int64 `json:"exit_code,omitempty"`
}

// shapeNativeShell is the shell_call_output's JSON: one entry for the
// script (its commands ran as one process), its output cut to limit.
func shapeNativeShell(o events.ExecOutcome, limit int64) (string, bool) {
	if o.SandboxError != "" || o.Error != "" {
		text, ok := shapeExec(o, limit)
		return nativeShellText(text), ok
	}
	stdout, stderr := o.Stdout, o.Stderr
	if stdout == "" && stderr == "" {
		stdout = o.Output
	}
	cut := func(s string) string {
		s = strings.ToValidUTF8(s, "\uFFFD")
		if int64(len(s)) > limit {
			s = s[:limit] + fmt.Sprintf("\n…%d bytes truncated", int64(len(s))-limit)
		}
		return s
	}
	out := shellOutput{Stdout: cut(stdout), Stderr: cut(stderr)}
	if o.TimedOut {
		out.Outcome.Type = "timeout"
	} else {
		code := int64(o.ExitCode)
		out.Outcome = shellOutcome{Type: "exit", ExitCode: &code}
	}
	b, _ := json.Marshal([]shellOutput{out}) // strings and numbers: cannot fail
	return string(b), o.ExitCode == 0 && !o.TimedOut && o.Signal == ""
}

// nativeShellText wraps a plain sentence (a refusal, an interruption) as
// the one entry of a shell_call_output, so the item stays well formed.
func nativeShellText(text string) string {
	if strings.HasPrefix(strings.TrimSpace(text), "[") && json.Valid([]byte(text)) {
		return text
	}
	code := int64(-1)
	b, _ := json.Marshal([]shellOutput{{Stderr: text, Outcome: shellOutcome{Type: "exit", ExitCode: &code}}}) // strings: cannot fail
	return string(b)
}

// NativeApplyPatchTool applies an apply_patch_call's operation, through
// Docket's own patch format, all or nothing.
type NativeApplyPatchTool struct{}

// Spec offers the Responses API's apply_patch tool ({"type":"apply_patch"}).
func (NativeApplyPatchTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: NativeApplyPatchName, Kind: model.ToolApplyPatch}
}

// ParallelSafe: patches run one at a time, in order.
func (NativeApplyPatchTool) ParallelSafe() bool { return false }

type patchOperation struct {
	Type string `json:"type"`
	Path string `json:"path"`
	Diff string `json:"diff"`
}

// operationPatch turns an operation into Docket's patch text.
func operationPatch(payload string) (string, error) {
	var op patchOperation
	if err := decodeStrict(payload, &op); err != nil {
		return "", fmt.Errorf("apply_patch_call operation: %w", err)
	}
	if op.Path == "" || strings.ContainsAny(op.Path, "\x00\n\r") {
		return "", fmt.Errorf("apply_patch_call path %q: want one file path", op.Path)
	}
	diff := strings.TrimSuffix(op.Diff, "\n")
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	switch op.Type {
	case "create_file":
		fmt.Fprintf(&b, "*** Add File: %s\n", op.Path)
		for _, l := range strings.Split(diff, "\n") {
			if !strings.HasPrefix(l, "+") {
				l = "+" + l
			}
			b.WriteString(l + "\n")
		}
	case "update_file":
		if diff == "" {
			return "", errors.New("apply_patch_call update_file has an empty diff")
		}
		for i, l := range strings.Split(diff, "\n") {
			// A hunk's lines only: a file header inside the diff would
			// make one operation touch another file.
			if strings.HasPrefix(l, "***") && l != "*** End of File" {
				return "", fmt.Errorf("apply_patch_call update_file diff line %d %q: a diff holds hunks (@@, ' ', '-', '+'), not patch headers", i+1, l)
			}
		}
		fmt.Fprintf(&b, "*** Update File: %s\n%s\n", op.Path, diff)
	case "delete_file":
		fmt.Fprintf(&b, "*** Delete File: %s\n", op.Path)
	default:
		return "", fmt.Errorf("apply_patch_call operation %q: want create_file, update_file or delete_file", op.Type)
	}
	b.WriteString("*** End Patch\n")
	return b.String(), nil
}

// WritePaths lists the path the operation writes, for the engine to
// resolve when the response arrives.
func (NativeApplyPatchTool) WritePaths(c Call, cwd string) []string {
	text, err := operationPatch(c.Payload)
	if err != nil {
		return nil
	}
	return ApplyPatchTool{}.WritePaths(Call{Kind: model.ToolCustom, Payload: text}, cwd)
}

// Prepare judges the operation exactly as apply_patch judges a patch.
func (NativeApplyPatchTool) Prepare(c Call, env *Env) (*PreparedCall, error) {
	if c.Kind != model.ToolApplyPatch {
		return nil, fmt.Errorf("%s is the Responses API's apply_patch tool; it was called as a %s tool", NativeApplyPatchName, c.Kind)
	}
	text, err := operationPatch(c.Payload)
	if err != nil {
		return nil, err
	}
	return preparePatch(c, env, text, env.Cwd)
}

// SurfaceTool returns the built-in tool of Codex's tool surface called
// name (exec_command, write_stdin, shell_command, the native shell and
// apply_patch), for replay to rebuild what a session offered.
func SurfaceTool(name string) (Tool, bool) {
	switch name {
	case ExecCommandName:
		return ExecCommandTool{}, true
	case WriteStdinName:
		return WriteStdinTool{}, true
	case ShellCommandName:
		return ShellCommandTool{}, true
	case NativeShellName:
		return NativeShellTool{}, true
	case NativeApplyPatchName:
		return NativeApplyPatchTool{}, true
	}
	return nil, false
}
