package hooks

import (
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
)

func TestJudgeTurnsAHookOutcomeIntoAVerdict(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stage    events.HookStage
		o        events.ExecOutcome
		decision events.HookDecision
		reason   string // substring of the reason, or of the failure
		fails    bool
	}{
		{name: "exit 0 and silence allows", o: events.ExecOutcome{}, decision: events.HookAllow},
		{name: "exit 2 denies with stderr", o: events.ExecOutcome{ExitCode: 2, Stderr: " no pushing \n"}, decision: events.HookDeny, reason: "no pushing"},
		{name: "exit 2 without stderr still denies", o: events.ExecOutcome{ExitCode: 2}, decision: events.HookDeny, reason: "without saying why"},
		{name: "json allow", o: events.ExecOutcome{Stdout: `{"decision":"allow"}`}, decision: events.HookAllow},
		{name: "json deny with reason", o: events.ExecOutcome{Stdout: `{"decision":"deny","reason":"nope"}`}, decision: events.HookDeny, reason: "nope"},
		{name: "json ask", o: events.ExecOutcome{Stdout: `{"decision":"ask"}`}, decision: events.HookAsk},
		{name: "ask after the call ran fails", stage: events.HookPostTool, o: events.ExecOutcome{Stdout: `{"decision":"ask"}`}, fails: true, reason: "after the call had run"},
		{name: "unknown decision fails", o: events.ExecOutcome{Stdout: `{"decision":"approve"}`}, fails: true, reason: `"approve"`},
		{name: "json without decision fails", o: events.ExecOutcome{Stdout: `{"reason":"x"}`}, fails: true, reason: "without a"},
		{name: "two json values fail", o: events.ExecOutcome{Stdout: `{"decision":"allow"} {"decision":"deny"}`}, fails: true, reason: "not a JSON answer"},
		{name: "garbage fails", o: events.ExecOutcome{Stdout: "ok!"}, fails: true, reason: "not a JSON answer"},
		{name: "cut output fails", o: events.ExecOutcome{Stdout: `{"decision":"allow"}`, Truncated: true}, fails: true, reason: "output cut"},
		{name: "exit 1 fails", o: events.ExecOutcome{ExitCode: 1, Stderr: "boom"}, fails: true, reason: "exited 1: boom"},
		{name: "time-out fails", o: events.ExecOutcome{ExitCode: -1, TimedOut: true}, fails: true, reason: "within 2s"},
		{name: "signal fails", o: events.ExecOutcome{ExitCode: -1, Signal: "SIGSEGV"}, fails: true, reason: "SIGSEGV"},
		{name: "no sandbox fails", o: events.ExecOutcome{SandboxError: "landlock missing"}, fails: true, reason: "could not be sandboxed"},
		{name: "no start fails", o: events.ExecOutcome{Error: "no such file"}, fails: true, reason: "could not run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stage := tc.stage
			if stage == "" {
				stage = events.HookPreTool
			}
			d, reason, err := judge(stage, tc.o, 2*time.Second)
			if tc.fails {
				if err == nil || !strings.Contains(err.Error(), tc.reason) {
					t.Fatalf("judge = %q %q %v, want a failure mentioning %q", d, reason, err, tc.reason)
				}
				return
			}
			if err != nil || d != tc.decision || !strings.Contains(reason, tc.reason) {
				t.Fatalf("judge = %q %q %v, want %q with %q", d, reason, err, tc.decision, tc.reason)
			}
		})
	}
}

func TestSpecMatchesToolGlobAndArgvPrefix(t *testing.T) {
	push := Spec{Tool: "shell", ArgvPrefix: []string{"git", "push"}}
	for _, tc := range []struct {
		name string
		spec Spec
		tool string
		argv []string
		want bool
	}{
		{"any tool", Spec{Tool: "*"}, "mcp__fs__read", nil, true},
		{"glob", Spec{Tool: "mcp__*"}, "mcp__fs__read", nil, true},
		{"other tool", Spec{Tool: "shell"}, "apply_patch", nil, false},
		{"plain argv", push, "shell", []string{"git", "push", "origin"}, true},
		{"other argv", push, "shell", []string{"git", "status"}, false},
		{"inside a script", push, "shell", []string{"bash", "-lc", "make && git push origin"}, true},
		{"a script without it", push, "shell", []string{"bash", "-lc", "make && git status"}, false},
		{"a script the parser gives up on matches", push, "shell", []string{"bash", "-lc", "$(echo git) push"}, true},
		{"too short", push, "shell", []string{"git"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.spec.Matches(tc.tool, tc.argv); got != tc.want {
				t.Fatalf("Matches(%q, %q) = %v, want %v", tc.tool, tc.argv, got, tc.want)
			}
		})
	}
}
