package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// DefaultShellTimeoutMs is the shell tool's time limit when the model gives
// none (Codex's default).
const DefaultShellTimeoutMs = 10_000

// ShellTool runs a command, by default inside the sandbox.
type ShellTool struct{}

// Spec describes the shell tool to the model.
func (ShellTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name:        "shell",
		Kind:        model.ToolFunction,
		Description: "Runs a command (argv) in the workspace, inside the sandbox unless approved otherwise. Returns exit code, wall time and output.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"command":{"type":"array","items":{"type":"string"},"description":"argv; use [\"bash\",\"-lc\",\"...\"] for a script"},` +
			`"workdir":{"type":"string","description":"working directory, relative to the workspace"},` +
			`"timeout_ms":{"type":"number"},` +
			`"sandbox_permissions":{"type":"string","enum":["use_default","require_escalated"]},` +
			`"justification":{"type":"string","description":"why escalation is needed"}},` +
			`"required":["command"],"additionalProperties":false}`),
	}
}

// ParallelSafe: shell calls may run side by side.
func (ShellTool) ParallelSafe() bool { return true }

type shellArgs struct {
	Command            []string `json:"command"`
	Workdir            string   `json:"workdir"`
	TimeoutMs          *int64   `json:"timeout_ms"`
	SandboxPermissions string   `json:"sandbox_permissions"`
	Justification      string   `json:"justification"`
}

// shellArgKey reports a key of shellArgs as its json tag spells it.
func shellArgKey(k string) bool {
	switch k {
	case "command", "workdir", "timeout_ms", "sandbox_permissions", "justification":
		return true
	}
	return false
}

// Prepare validates the arguments and asks the decision logic.
func (ShellTool) Prepare(c Call, env *Env) (*PreparedCall, error) {
	if c.Kind != model.ToolFunction {
		return nil, fmt.Errorf("shell is a function tool; it was called as a %s tool", c.Kind)
	}
	var a shellArgs
	if !decodeStrictFast(c.Payload, &a, shellArgKey) {
		a = shellArgs{}
		dec := json.NewDecoder(strings.NewReader(c.Payload))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return nil, fmt.Errorf("arguments are not valid shell arguments: %w", err)
		}
		if dec.More() {
			return nil, errors.New("arguments hold more than one JSON value")
		}
	}
	if len(a.Command) == 0 || a.Command[0] == "" {
		return nil, errors.New("command is empty: give argv, e.g. [\"ls\", \"-la\"]")
	}
	for i, arg := range a.Command {
		if strings.IndexByte(arg, 0) >= 0 {
			return nil, fmt.Errorf("command[%d] contains a NUL byte", i)
		}
	}
	switch a.SandboxPermissions {
	case "", "use_default", "require_escalated":
	default:
		return nil, fmt.Errorf("sandbox_permissions %q: want use_default or require_escalated", a.SandboxPermissions)
	}
	cwd, err := resolveWorkdir(env.Cwd, a.Workdir)
	if err != nil {
		return nil, err
	}
	if text, dir, ok := interceptedPatch(a.Command, cwd); ok {
		return preparePatch(c, env, text, dir)
	}
	timeout := int64(DefaultShellTimeoutMs)
	if a.TimeoutMs != nil {
		if *a.TimeoutMs <= 0 {
			return nil, fmt.Errorf("timeout_ms %d: want a positive number of milliseconds", *a.TimeoutMs)
		}
		timeout = *a.TimeoutMs
	}
	escalated := a.SandboxPermissions == "require_escalated"
	req := env.Decider.ExecRequirement(a.Command, escalated, a.Justification)
	return &PreparedCall{
		ApprovalKind:  events.ApprovalExec,
		Command:       a.Command,
		Cwd:           cwd,
		Keys:          []string{env.Decider.ExecKey(a.Command, cwd, a.SandboxPermissions)},
		Requirement:   req,
		Escalated:     escalated,
		Justification: a.Justification,
		Retryable:     true,
		Start:         events.ExecStarted{Tool: "shell", Argv: a.Command, Cwd: cwd, TimeoutMs: timeout},
		Shape:         func(o events.ExecOutcome) (string, bool) { return shapeExec(o, env.Config.ToolOutputMaxBytes) },
	}, nil
}

// resolveWorkdir resolves a workdir against the workspace lexically (no
// disk access, so replay agrees) and refuses one that leaves it.
func resolveWorkdir(root, workdir string) (string, error) {
	if workdir == "" || workdir == "." {
		return root, nil
	}
	if strings.IndexByte(workdir, 0) >= 0 {
		return "", errors.New("workdir contains a NUL byte")
	}
	p := workdir
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	if !events.Within(p, filepath.Clean(root)) {
		return "", fmt.Errorf("workdir %q is outside the workspace %s", workdir, root)
	}
	return p, nil
}

// DefaultOutputMaxBytes caps what the model sees of a command's output.
const DefaultOutputMaxBytes = 10 * 1024

// shapeExec renders a process outcome the way Codex shows it to the model.
func shapeExec(o events.ExecOutcome, max int64) (string, bool) {
	if max <= 0 {
		max = DefaultOutputMaxBytes
	}
	var b bytes.Buffer
	switch {
	case o.SandboxError != "":
		fmt.Fprintf(&b, "The sandbox could not be set up, so the command did not run: %s\n", o.SandboxError)
		return b.String(), false
	case o.Error != "":
		fmt.Fprintf(&b, "The command could not be started: %s\n", o.Error)
		return b.String(), false
	}
	fmt.Fprintf(&b, "Exit code: %d\n", o.ExitCode)
	fmt.Fprintf(&b, "Wall time: %.1f seconds\n", float64(o.DurationNs)/1e9)
	if o.TimedOut {
		b.WriteString("The command timed out and was killed.\n")
	}
	if o.Killed != "" {
		// "killed: memory limit": the call ran out of what it may use.
		fmt.Fprintf(&b, "killed: %s\n", strings.ReplaceAll(o.Killed, "_", " "))
	} else if o.Signal != "" && !o.TimedOut {
		fmt.Fprintf(&b, "Killed by signal %s.\n", o.Signal)
	}
	if o.Denial != nil {
		fmt.Fprintf(&b, "The sandbox denied it: %s\n", o.Denial.Reason)
	}
	if o.Truncated {
		b.WriteString("Output was truncated at capture.\n")
	}
	b.WriteString("Output:\n")
	b.WriteString(shapeForModel(strings.ToValidUTF8(o.Output, "\uFFFD"), int(max)))
	return b.String(), o.ExitCode == 0 && !o.TimedOut && o.Signal == ""
}
