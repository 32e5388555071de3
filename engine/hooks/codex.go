package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/docket-engine/docket/events"
)

// ProtocolCodex is Spec.Protocol for a hook written for Codex 0.171
// ([[hooks.PreToolUse]] with matcher "Bash"): it is told the call as Codex
// tells a PreToolUse hook and answers as Codex reads one. Only shell
// calls (shell, exec_command) can be told so; any other call is a failure
// of the hook, never a call it was not meant for passed off as one.
const ProtocolCodex = "codex"

// CodexTools are the Docket tools a Codex "Bash" hook judges: Codex calls
// both its argv shell and its exec_command "Bash" in a hook's input.
func CodexTools() []string { return []string{"shell", "exec_command"} }

// codexInput is Codex's pre-tool-use.command.input.
type codexInput struct {
	SessionID      string         `json:"session_id"`
	TurnID         string         `json:"turn_id"`
	TranscriptPath *string        `json:"transcript_path"`
	Cwd            string         `json:"cwd"`
	HookEventName  string         `json:"hook_event_name"`
	Model          string         `json:"model"`
	PermissionMode string         `json:"permission_mode"`
	ToolName       string         `json:"tool_name"`
	ToolInput      codexToolInput `json:"tool_input"`
	ToolUseID      string         `json:"tool_use_id"`
}

type codexToolInput struct {
	Command string `json:"command"`
}

// codexStdin is what a Codex hook is told of call c.
func codexStdin(c Call) ([]byte, error) {
	if c.Stage != events.HookPreTool {
		return nil, fmt.Errorf("a Codex hook runs before a call only, not at %s", c.Stage)
	}
	shell := false
	for _, t := range CodexTools() {
		shell = shell || c.Tool == t
	}
	if !shell || len(c.Argv) == 0 {
		return nil, fmt.Errorf("a Codex Bash hook cannot be told a %q call", c.Tool)
	}
	mode := "default"
	if c.ApprovalPolicy == "never" {
		// Codex's name for running without asking.
		mode = "bypassPermissions"
	}
	return json.Marshal(codexInput{SessionID: c.SessionID, TurnID: c.TurnID, Cwd: c.Cwd, HookEventName: "PreToolUse", Model: c.Model,
		PermissionMode: mode, ToolName: "Bash", ToolInput: codexToolInput{Command: codexCommand(c.Argv)}, ToolUseID: c.CallID})
}

// codexCommand is the command text of argv as Codex gives it a Bash hook:
// the script of a shell's -c or -lc, else the words shell-quoted.
func codexCommand(argv []string) string {
	if len(argv) == 3 && (argv[1] == "-c" || argv[1] == "-lc") {
		switch path.Base(argv[0]) {
		case "sh", "bash", "zsh", "dash":
			return argv[2]
		}
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = shellQuote(a)
	}
	return strings.Join(words, " ")
}

// shellQuote quotes s for a POSIX shell unless it needs none.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// codexAnswer is Codex's pre-tool-use.command.output. Unknown fields make
// it no answer, as Codex's own schema does.
type codexAnswer struct {
	Continue           *bool              `json:"continue"`
	StopReason         string             `json:"stopReason"`
	SuppressOutput     bool               `json:"suppressOutput"`
	SystemMessage      string             `json:"systemMessage"`
	Decision           *string            `json:"decision"`
	Reason             string             `json:"reason"`
	HookSpecificOutput *codexSpecificWire `json:"hookSpecificOutput"`
}

type codexSpecificWire struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       *string         `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
}

// judgeCodex reads a finished Codex hook's outcome as Codex 0.171 reads
// a PreToolUse hook, where Docket can do what it says; where it cannot
// (stop the whole turn, rewrite the call), the call is denied: never
// run in a way the hook did not agree to. Failures are as judge's.
func judgeCodex(o events.ExecOutcome, timeout time.Duration) (events.HookDecision, string, error) {
	if o.ExitCode != 0 || o.SandboxError != "" || o.Error != "" || o.TimedOut || o.Signal != "" || o.Killed != "" {
		return judge(events.HookPreTool, o, timeout)
	}
	out := bytes.TrimSpace([]byte(o.Stdout))
	if len(out) == 0 || out[0] != '{' {
		// Codex reads only a JSON object; other text is not an answer.
		return events.HookAllow, "", nil
	}
	if o.Truncated {
		return "", "", &failure{"printed more than an answer (output cut)"}
	}
	var a codexAnswer
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil || dec.More() {
		return "", "", &failure{"printed JSON that is not a Codex PreToolUse answer: " + clipTo(string(out), 200)}
	}
	hs := a.HookSpecificOutput
	switch {
	case a.Continue != nil && !*a.Continue:
		return events.HookDeny, clip(firstNonEmpty(a.StopReason, "the hook stopped the turn (continue: false)")), nil
	case a.Decision != nil && *a.Decision == "block":
		return events.HookDeny, clip(firstNonEmpty(strings.TrimSpace(a.Reason), "blocked by the hook")), nil
	case a.Decision != nil && *a.Decision != "approve":
		return "", "", &failure{fmt.Sprintf("answered decision %q, not block or approve", clipTo(*a.Decision, 40))}
	case hs == nil:
		return events.HookAllow, "", nil
	case len(hs.UpdatedInput) > 0 && string(hs.UpdatedInput) != "null":
		return events.HookDeny, "the hook rewrote the call's input (updatedInput), which Docket does not do; the call as the model wrote it is not run", nil
	case hs.PermissionDecision == nil:
		return events.HookAllow, "", nil
	}
	reason := clip(strings.TrimSpace(hs.PermissionDecisionReason))
	switch *hs.PermissionDecision {
	case "deny":
		return events.HookDeny, firstNonEmpty(reason, "denied by the hook"), nil
	case "ask":
		return events.HookAsk, reason, nil
	case "allow":
		// An allow changes nothing in Docket: it never lifts a rule or
		// skips a prompt.
		return events.HookAllow, reason, nil
	}
	return "", "", &failure{fmt.Sprintf("answered permissionDecision %q, not allow, deny or ask", clipTo(*hs.PermissionDecision, 40))}
}
