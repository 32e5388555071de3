package hooks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
)

// TestJudgeCodexReadsAnAnswerAsCodexDoes: Codex's PreToolUse answers
// become Docket verdicts; what Docket cannot do (stop the turn, rewrite
// the call) denies the call rather than run it otherwise.
func TestJudgeCodexReadsAnAnswerAsCodexDoes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		o        events.ExecOutcome
		decision events.HookDecision
		reason   string
		fails    bool
	}{
		{name: "exit 0 and silence allows", decision: events.HookAllow},
		{name: "plain text is no answer and allows", o: events.ExecOutcome{Stdout: "hi\n"}, decision: events.HookAllow},
		{name: "exit 2 denies with stderr", o: events.ExecOutcome{ExitCode: 2, Stderr: "no rm\n"}, decision: events.HookDeny, reason: "no rm"},
		{name: "decision block denies", o: events.ExecOutcome{Stdout: `{"decision":"block","reason":"not here"}`}, decision: events.HookDeny, reason: "not here"},
		{name: "decision approve allows", o: events.ExecOutcome{Stdout: `{"decision":"approve"}`}, decision: events.HookAllow},
		{name: "permissionDecision deny denies", o: events.ExecOutcome{Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy"}}`},
			decision: events.HookDeny, reason: "policy"},
		{name: "permissionDecision ask asks", o: events.ExecOutcome{Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}`}, decision: events.HookAsk},
		{name: "permissionDecision allow allows", o: events.ExecOutcome{Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`}, decision: events.HookAllow},
		{name: "additionalContext alone allows", o: events.ExecOutcome{Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"fyi"}}`}, decision: events.HookAllow},
		{name: "continue false denies", o: events.ExecOutcome{Stdout: `{"continue":false,"stopReason":"halt"}`}, decision: events.HookDeny, reason: "halt"},
		{name: "updatedInput denies", o: events.ExecOutcome{Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}`},
			decision: events.HookDeny, reason: "updatedInput"},
		{name: "Docket's own answer is not Codex's and fails", o: events.ExecOutcome{Stdout: `{"decision":"deny"}`}, fails: true, reason: `"deny"`},
		{name: "an unknown field fails", o: events.ExecOutcome{Stdout: `{"verdict":"allow"}`}, fails: true, reason: "not a Codex PreToolUse answer"},
		{name: "an unknown permissionDecision fails", o: events.ExecOutcome{Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}`}, fails: true, reason: `"maybe"`},
		{name: "exit 1 fails", o: events.ExecOutcome{ExitCode: 1, Stderr: "boom"}, fails: true, reason: "exited 1"},
		{name: "time-out fails", o: events.ExecOutcome{ExitCode: -1, TimedOut: true}, fails: true, reason: "within 2s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, reason, err := judgeCodex(tc.o, 2*time.Second)
			if tc.fails {
				if err == nil || !strings.Contains(err.Error(), tc.reason) {
					t.Fatalf("judgeCodex = %q %q %v, want a failure mentioning %q", d, reason, err, tc.reason)
				}
				return
			}
			if err != nil || d != tc.decision || !strings.Contains(reason, tc.reason) {
				t.Fatalf("judgeCodex = %q %q %v, want %q with %q", d, reason, err, tc.decision, tc.reason)
			}
		})
	}
}

// TestCodexStdinIsCodexsPreToolUseInput: a shell call is told as Codex's
// Bash tool; a call of another tool, or after the call, is no input.
func TestCodexStdinIsCodexsPreToolUseInput(t *testing.T) {
	for _, tc := range []struct {
		name    string
		call    Call
		command string
		mode    string
		fails   bool
	}{
		{name: "argv is shell-quoted", call: Call{Stage: events.HookPreTool, Tool: "shell", Argv: []string{"rm", "-rf", "my dir"}}, command: "rm -rf 'my dir'", mode: "default"},
		{name: "a shell's script is the command", call: Call{Stage: events.HookPreTool, Tool: "exec_command", Argv: []string{"/bin/bash", "-lc", "git push && ls"}, ApprovalPolicy: "never"},
			command: "git push && ls", mode: "bypassPermissions"},
		{name: "apply_patch is not told", call: Call{Stage: events.HookPreTool, Tool: "apply_patch", Paths: []string{"a"}}, fails: true},
		{name: "an MCP call is not told", call: Call{Stage: events.HookPreTool, Tool: "mcp__fs__write", Server: "fs"}, fails: true},
		{name: "post_tool is not told", call: Call{Stage: events.HookPostTool, Tool: "shell", Argv: []string{"ls"}}, fails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.call.SessionID, tc.call.CallID, tc.call.Cwd, tc.call.Model = "s1", "c1", "/w", "gpt-5.5"
			b, err := codexStdin(tc.call)
			if tc.fails {
				if err == nil {
					t.Fatalf("codexStdin = %s, want an error", b)
				}
				return
			}
			var in map[string]any
			if err != nil || json.Unmarshal(b, &in) != nil {
				t.Fatalf("codexStdin = %s, %v", b, err)
			}
			ti, _ := in["tool_input"].(map[string]any)
			if in["hook_event_name"] != "PreToolUse" || in["tool_name"] != "Bash" || ti["command"] != tc.command || in["tool_use_id"] != "c1" ||
				in["session_id"] != "s1" || in["cwd"] != "/w" || in["permission_mode"] != tc.mode || in["model"] != "gpt-5.5" {
				t.Errorf("stdin %s", b)
			}
			if v, ok := in["transcript_path"]; !ok || v != nil {
				t.Errorf("transcript_path: %v %v, want null", v, ok)
			}
		})
	}
}

// TestACodexGuardStopsACommandOnlyWhenToldAsCodex runs a real guard
// written for Codex (it reads .tool_input.command and exits 2 on rm -rf):
// told the call as Codex, it denies rm -rf and allows ls; told it as
// Docket, it would not see the command and would allow rm -rf, which is
// why Docket never runs a Codex hook with its own protocol.
func TestACodexGuardStopsACommandOnlyWhenToldAsCodex(t *testing.T) {
	guard := `import json, sys
d = json.load(sys.stdin)
cmd = (d.get("tool_input") or {}).get("command", "")
if "rm -rf" in cmd:
    print("no rm -rf", file=sys.stderr)
    sys.exit(2)
`
	for _, tc := range []struct {
		name     string
		protocol string
		argv     []string
		want     events.HookDecision
	}{
		{"Codex protocol, rm -rf", ProtocolCodex, []string{"bash", "-lc", "rm -rf /tmp/x"}, events.HookDeny},
		{"Codex protocol, ls", ProtocolCodex, []string{"ls", "-l"}, events.HookAllow},
		{"Docket protocol, rm -rf (the guard is blind)", "", []string{"bash", "-lc", "rm -rf /tmp/x"}, events.HookAllow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Runner{Pre: []Spec{{Name: "guard", Tool: "shell", Protocol: tc.protocol, Unsandboxed: true,
				Command: []string{"python3", "-c", guard}}}, Cwd: t.TempDir()}
			vs := r.Run(context.Background(), Call{Stage: events.HookPreTool, CallID: "c1", Tool: "shell", Argv: tc.argv, Cwd: t.TempDir()})
			if len(vs) != 1 || vs[0].Decision != tc.want || vs[0].Error != "" {
				t.Fatalf("verdicts %+v, want one %q", vs, tc.want)
			}
			if tc.want == events.HookDeny && vs[0].Reason != "no rm -rf" {
				t.Errorf("reason %q", vs[0].Reason)
			}
		})
	}
}
