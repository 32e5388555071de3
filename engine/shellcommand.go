package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/docket-engine/docket/engine/model"
)

// ShellCommandName is Codex's other shell tool: a command string.
const ShellCommandName = "shell_command"

// ShellCommandTool is Codex's shell_command: like shell, but the command
// is one string run by the user's shell (bash here), and it runs to its end.
type ShellCommandTool struct{}

// Spec describes shell_command as Codex does.
func (ShellCommandTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name:        ShellCommandName,
		Kind:        model.ToolFunction,
		Description: "Runs a shell command and returns its output.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"command":{"type":"string","description":"The shell script to execute in the user's default shell"},` +
			`"workdir":{"type":"string","description":"The working directory to execute the command in"},` +
			`"login":{"type":"boolean","description":"Whether to run the shell with login shell semantics. Defaults to true."},` +
			`"timeout_ms":{"type":"number","description":"The timeout for the command in milliseconds"},` +
			`"sandbox_permissions":{"type":"string","enum":["use_default","require_escalated"]},` +
			`"justification":{"type":"string"},` +
			`"prefix_rule":{"type":"array","items":{"type":"string"}}},` +
			`"required":["command"],"additionalProperties":false}`),
	}
}

// ParallelSafe: as shell.
func (ShellCommandTool) ParallelSafe() bool { return true }

type shellCommandArgs struct {
	Command            string   `json:"command"`
	Workdir            string   `json:"workdir"`
	Login              *bool    `json:"login"`
	TimeoutMs          *int64   `json:"timeout_ms"`
	SandboxPermissions string   `json:"sandbox_permissions"`
	Justification      string   `json:"justification"`
	PrefixRule         []string `json:"prefix_rule"`
}

// Prepare turns the string into `bash -lc STRING` (`-c` without login)
// and hands it to shell's own preparation: the same rules, known-safe
// list, escalation and approvals.
func (ShellCommandTool) Prepare(c Call, env *Env) (*PreparedCall, error) {
	if c.Kind != model.ToolFunction {
		return nil, fmt.Errorf("%s is a function tool; it was called as a %s tool", ShellCommandName, c.Kind)
	}
	var a shellCommandArgs
	if err := decodeStrict(c.Payload, &a); err != nil {
		return nil, fmt.Errorf("arguments are not valid %s arguments: %w", ShellCommandName, err)
	}
	if strings.TrimSpace(a.Command) == "" {
		return nil, errors.New("command is empty: give the command line to run")
	}
	flag := "-lc"
	if a.Login != nil && !*a.Login {
		flag = "-c"
	}
	args, err := json.Marshal(shellArgs{Command: []string{"bash", flag, a.Command}, Workdir: a.Workdir, TimeoutMs: a.TimeoutMs,
		SandboxPermissions: a.SandboxPermissions, Justification: a.Justification})
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return ShellTool{}.Prepare(Call{ID: c.ID, Name: "shell", Kind: model.ToolFunction, Payload: string(args)}, env)
}
