package audit

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func callByID(t *testing.T, r *Report, id string) Call {
	t.Helper()
	for _, c := range r.Calls {
		if c.CallID == id {
			return c
		}
	}
	t.Fatalf("call %s not in report (calls: %d)", id, len(r.Calls))
	return Call{}
}

func TestEachKindOfCallIsAuditedWithItsOutcomeAndWhy(t *testing.T) {
	r, err := Build(mixedSession(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id, behaviour string
		tool          string
		outcome       string
		final         string
		exit          *int
		unsandboxed   bool
		why           string
		violations    int
		sandbox       string // mode of the first run, "" for none
	}{
		{id: "c1", behaviour: "known-safe command runs sandboxed", tool: "shell", outcome: "completed", final: "done", exit: ip(0), sandbox: "workspace-write"},
		{id: "c2", behaviour: "user denial", tool: "shell", outcome: "denied", final: "done"},
		{id: "c3", behaviour: "sandbox denial then user-approved retry", tool: "shell", outcome: "completed", final: "done", exit: ip(0), unsandboxed: true, sandbox: "workspace-write",
			why: "sandbox denied it (EROFS writing /etc/x); user approved the retry at 2026-11-22T10:00:24Z"},
		{id: "c4", behaviour: "allow rule bypasses the sandbox", tool: "shell", outcome: "completed", final: "done", exit: ip(0), unsandboxed: true, sandbox: "none",
			why: `allow rule prefix_rule(pattern=["git", "push"]) at /home/dev/.docket/rules/default.rules:3`},
		{id: "c5", behaviour: "MCP tool runs out of process", tool: "mcp__fs__read", outcome: "completed", final: "done", exit: ip(0), unsandboxed: true, sandbox: "none",
			why: "MCP tool runs out of process; approved by user (--decisions) at 2026-11-22T10:00:37Z"},
		{id: "c6", behaviour: "user approves the model's escalation", tool: "shell", outcome: "completed", final: "done", exit: ip(0), unsandboxed: true, sandbox: "none",
			why: "the model requested escalation (needs the network to fetch the schema); user approved for the session at 2026-11-22T10:00:47Z"},
		{id: "c7", behaviour: "session grant from an earlier call", tool: "shell", outcome: "completed", final: "done", exit: ip(0), unsandboxed: true, sandbox: "none",
			why: "approved for the session by user at 2026-11-22T10:00:47Z (call c6)"},
		{id: "c8", behaviour: "unknown tool is an invalid call", tool: "shel", outcome: "invalid", final: "done"},
		{id: "c9", behaviour: "escalation without a decision is a violation", tool: "shell", outcome: "failed", final: "done", exit: ip(2), unsandboxed: true, sandbox: "none", violations: 1,
			why: "cause escalation_requested (the model asked for it) does not justify running without the sandbox"},
		{id: "c10", behaviour: "approved call retried without asking again", tool: "shell", outcome: "completed", final: "done", exit: ip(0), unsandboxed: true, sandbox: "workspace-write",
			why: "sandbox denied it (SIGSYS: seccomp); user had approved the call at 2026-11-22T10:01:12Z, so the retry ran without asking again"},
		{id: "c11", behaviour: "crash mid-run is interrupted", tool: "shell", outcome: "interrupted", final: "done", sandbox: "workspace-write"},
		{id: "c12", behaviour: "time-out is a denial, not the user's", tool: "shell", outcome: "denied", final: "done"},
		{id: "c13", behaviour: "parked call is pending", tool: "shell", outcome: "pending", final: "awaitingDecision"},
	}
	if len(r.Calls) != len(tests) {
		t.Fatalf("report has %d calls, want %d", len(r.Calls), len(tests))
	}
	for i, tc := range tests {
		t.Run(tc.id+"/"+tc.behaviour, func(t *testing.T) {
			c := r.Calls[i]
			if c.CallID != tc.id {
				t.Fatalf("call %d is %s, want %s (calls come in the order they began)", i, c.CallID, tc.id)
			}
			if c.Tool != tc.tool || c.Outcome != tc.outcome || c.FinalState != tc.final {
				t.Errorf("tool/outcome/final = %s/%s/%s, want %s/%s/%s", c.Tool, c.Outcome, c.FinalState, tc.tool, tc.outcome, tc.final)
			}
			if (c.ExitCode == nil) != (tc.exit == nil) || c.ExitCode != nil && *c.ExitCode != *tc.exit {
				t.Errorf("exit code %v, want %v", fmtp(c.ExitCode), fmtp(tc.exit))
			}
			if c.RanUnsandboxed != tc.unsandboxed || c.WhyUnsandboxed != tc.why {
				t.Errorf("unsandboxed %v why %q\nwant        %v why %q", c.RanUnsandboxed, c.WhyUnsandboxed, tc.unsandboxed, tc.why)
			}
			if len(c.Violations) != tc.violations {
				t.Errorf("violations %q, want %d", c.Violations, tc.violations)
			}
			switch {
			case tc.sandbox == "" && c.Sandbox != nil:
				t.Errorf("sandbox %+v for a call that never ran", c.Sandbox)
			case tc.sandbox != "" && (c.Sandbox == nil || string(c.Sandbox.Mode) != tc.sandbox):
				t.Errorf("sandbox %+v, want mode %s", c.Sandbox, tc.sandbox)
			}
		})
	}
	if len(r.Violations) != 1 || r.Violations[0].CallID != "c9" || !strings.Contains(r.Violations[0].Message, "invariant 3") {
		t.Errorf("report violations = %+v, want one for c9 naming invariant 3", r.Violations)
	}
}

func TestReportCarriesPolicyRulesAndLayers(t *testing.T) {
	r, err := Build(mixedSession(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.SessionID != "0199a1b2-0000-7000-8000-00000000a001" || r.Policy.ApprovalPolicy != "on-failure" || r.Policy.SandboxMode != "workspace-write" {
		t.Errorf("header = %s %+v", r.SessionID, r.Policy)
	}
	if len(r.Rules.Files) != 1 || r.Rules.Files[0] != fixtureRules || r.Rules.Digest != "sha256:4e1f0c9a" {
		t.Errorf("rules = %+v", r.Rules)
	}
	c3 := callByID(t, r, "c3")
	if got := strings.Join(c3.Sandbox.Layers, " "); got != "landlock:v7 seccomp netns mountns" || c3.Sandbox.Network {
		t.Errorf("c3 sandbox = %+v", c3.Sandbox)
	}
	if len(c3.Attempts) != 2 || c3.Attempts[0].Denial == nil || c3.Attempts[0].Denial.Errno != "EROFS" || c3.Attempts[1].Sandbox.Mode != "none" {
		t.Errorf("c3 attempts = %+v", c3.Attempts)
	}
	if len(c3.Decisions) != 1 || c3.Decisions[0].Phase != "retry" || c3.Decisions[0].Source != "user" || c3.Decisions[0].At != "2026-11-22T10:00:24Z" {
		t.Errorf("c3 decisions = %+v", c3.Decisions)
	}
	want := []string{"wantsApproval|run_sandboxed|policy_skip", "sandboxed|sandbox_denied|sandbox_denial", "retryPrompt|ask|sandbox_denial",
		"awaitingDecision|run_unsandboxed|user_approved", "unsandboxed|finish|completed"}
	var got []string
	for _, tr := range c3.Transitions {
		got = append(got, tr.From+"|"+tr.Event+"|"+tr.Cause)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("c3 chain = %v\nwant %v", got, want)
	}
	c4 := callByID(t, r, "c4")
	if c4.Cwd != fixtureCwd || strings.Join(c4.Command, " ") != "git push" {
		t.Errorf("c4 command %q in %q", c4.Command, c4.Cwd)
	}
}

func TestPolicyWithoutSandboxExplainsItself(t *testing.T) {
	r, err := Build(dangerSession(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	d1 := callByID(t, r, "d1")
	if want := "approval policy never with sandbox danger-full-access"; d1.WhyUnsandboxed != want || len(r.Violations) != 0 {
		t.Errorf("why %q (violations %v), want %q", d1.WhyUnsandboxed, r.Violations, want)
	}
}

func TestUnsandboxedOnlyKeepsOnlyCallsThatRanWithoutASandbox(t *testing.T) {
	r, err := Build(mixedSession(t), Options{UnsandboxedOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range r.Calls {
		ids = append(ids, c.CallID)
		if !c.RanUnsandboxed || c.WhyUnsandboxed == "" || strings.Contains(c.WhyUnsandboxed, "\n") {
			t.Errorf("%s: ran_unsandboxed %v, why %q: want one line", c.CallID, c.RanUnsandboxed, c.WhyUnsandboxed)
		}
	}
	if got := strings.Join(ids, ","); got != "c3,c4,c5,c6,c7,c9,c10" {
		t.Errorf("calls %s", got)
	}
	if len(r.Violations) != 1 {
		t.Errorf("filtering must not hide violations: %+v", r.Violations)
	}
}

func TestOneCallThroughTheIndexMatchesTheFullAudit(t *testing.T) {
	path := mixedSession(t)
	full, err := Build(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c1", "c2", "c3", "c4", "c5", "c6", "c8", "c9", "c10", "c11", "c12", "c13"} {
		t.Run(id, func(t *testing.T) {
			one, err := Build(path, Options{CallID: id})
			if err != nil {
				t.Fatal(err)
			}
			if len(one.Calls) != 1 {
				t.Fatalf("%d calls", len(one.Calls))
			}
			want, got := marshal(callByID(t, full, id)), marshal(one.Calls[0])
			if got != want {
				t.Errorf("indexed audit differs\n got %s\nwant %s", got, want)
			}
			if marshal(one.Policy) != marshal(full.Policy) || one.SessionID != full.SessionID {
				t.Errorf("header %+v", one.Policy)
			}
		})
	}
}

func TestSessionGrantThroughTheIndexStillSaysWhy(t *testing.T) {
	one, err := Build(mixedSession(t), Options{CallID: "c7"})
	if err != nil {
		t.Fatal(err)
	}
	c := one.Calls[0]
	if !c.RanUnsandboxed || c.WhyUnsandboxed != "a session grant the user gave earlier (approved for this session earlier)" || len(c.Violations) != 0 {
		t.Errorf("why %q violations %v", c.WhyUnsandboxed, c.Violations)
	}
}

func TestUnknownCallIsAnErrorNamingIt(t *testing.T) {
	_, err := Build(mixedSession(t), Options{CallID: "nope"})
	var nf *CallNotFoundError
	if !errors.As(err, &nf) || nf.CallID != "nope" || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestNotAJournalIsAnError(t *testing.T) {
	_, err := Build(t.TempDir(), Options{})
	if err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("err = %v", err)
	}
}

func TestCancelledContextStopsTheScan(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Stream(ctx, mixedSession(t), Options{}, &collector{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func ip(i int) *int { return &i }

func fmtp(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
