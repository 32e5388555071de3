package replay_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay/audit"
	"github.com/docket-engine/docket/states/policy"
)

// causeDir holds one golden journal per cause scenario, recorded by real
// sessions (real sandbox, real bbolt file) with -update.
const causeDir = "../testdata/journals/causes"

// causeScenario is a session that ends its calls with particular causes.
// want is written by hand from DESIGN.md §2-3, not read back from the
// engine: for each call, its transitions as "event:cause", in order. Both
// a fresh recording and the committed golden journal must match it, so a
// re-recording with -update that changed behaviour fails here.
type causeScenario struct {
	name     string
	approval string
	mode     string
	script   []string
	answers  []events.ReviewDecision
	rules    string // a user rules file, when the scenario needs one
	// timeout is the approval timeout (an unanswered approval: Wait).
	timeout time.Duration
	// stop ends the turn from outside once a call runs: "cancel" as
	// Ctrl-C does, "deadline" as a passed deadline does.
	stop string
	want map[string]string
}

func causeScenarios() []causeScenario {
	patch := func(id, path string) string {
		return `{"type":"custom_tool_call","call_id":"` + id + `","name":"apply_patch","input":"*** Begin Patch\n*** Add File: ` + path + `\n+x\n*** End Patch\n"}`
	}
	escalated := func(id, cmd string) string {
		return `{"type":"function_call","call_id":"` + id + `","name":"shell","arguments":{"command":["bash","-lc",` + quote(cmd) + `],"sandbox_permissions":"require_escalated","justification":"needs it"}}`
	}
	wait := enginetest.Wait
	return []causeScenario{
		{name: "policy-skip", approval: "on-request", mode: "workspace-write",
			script: []string{line(shell("c1", "echo hi > a.txt")), finalMsg},
			want:   map[string]string{"c1": "run_sandboxed:policy_skip finish:completed"}},
		{name: "known-safe", approval: "untrusted", mode: "read-only",
			script: []string{line(shell("c1", "ls")), finalMsg},
			want:   map[string]string{"c1": "run_sandboxed:known_safe finish:completed"}},
		{name: "user-approved-and-denied", approval: "untrusted", mode: "workspace-write",
			script:  []string{line(shell("c1", "echo a > a.txt")), line(shell("c2", "echo b > b.txt")), finalMsg},
			answers: []events.ReviewDecision{events.Approved, events.Denied},
			want: map[string]string{
				"c1": "ask:untrusted_policy run_sandboxed:user_approved finish:completed",
				"c2": "ask:untrusted_policy deny:user_denied finish:user_denied"}},
		{name: "approval-timeout", approval: "untrusted", mode: "workspace-write",
			script: []string{line(shell("c1", "echo a > a.txt")), finalMsg}, answers: []events.ReviewDecision{wait},
			timeout: 50 * time.Millisecond,
			want:    map[string]string{"c1": "ask:untrusted_policy deny:approval_timeout finish:approval_timeout"}},
		{name: "user-abort", approval: "untrusted", mode: "workspace-write",
			// Parallel calls: c2 waits at the gate while c1 is asked.
			script: []string{line(shell("c1", "echo a > a.txt"), shell("c2", "echo b > b.txt")), finalMsg}, answers: []events.ReviewDecision{events.Abort},
			want: map[string]string{
				"c1": "ask:untrusted_policy deny:user_abort finish:user_abort",
				"c2": "deny:user_abort finish:user_abort"}},
		{name: "cancelled", approval: "on-request", mode: "workspace-write", stop: "cancel",
			script: []string{line(shell("c1", "echo started; sleep 30")), finalMsg},
			want:   map[string]string{"c1": "run_sandboxed:policy_skip interrupt:cancelled"}},
		{name: "deadline", approval: "on-request", mode: "workspace-write", stop: "deadline",
			script: []string{line(shell("c1", "echo started; sleep 30")), finalMsg},
			want:   map[string]string{"c1": "run_sandboxed:policy_skip interrupt:deadline"}},
		{name: "sandbox-denial-retry", approval: "on-failure", mode: "workspace-write",
			script:  []string{line(shell("c1", "echo x > /var/tmp/docket-golden-causes.txt")), finalMsg},
			answers: []events.ReviewDecision{events.Approved},
			want: map[string]string{"c1": "run_sandboxed:policy_skip sandbox_denied:sandbox_denial ask:sandbox_denial " +
				"run_unsandboxed:user_approved finish:completed"}},
		{name: "retry-not-allowed", approval: "on-request", mode: "workspace-write",
			script: []string{line(shell("c1", "echo x > /var/tmp/docket-golden-causes-2.txt")), finalMsg},
			want:   map[string]string{"c1": "run_sandboxed:policy_skip sandbox_denied:sandbox_denial finish:retry_not_allowed"}},
		{name: "already-approved", approval: "untrusted", mode: "workspace-write",
			script:  []string{line(shell("c1", "echo x > /var/tmp/docket-golden-causes-3.txt")), finalMsg},
			answers: []events.ReviewDecision{events.Approved},
			want: map[string]string{"c1": "ask:untrusted_policy run_sandboxed:user_approved sandbox_denied:sandbox_denial " +
				"run_unsandboxed:already_approved finish:completed"}},
		{name: "escalation-and-never", approval: "never", mode: "workspace-write",
			script: []string{line(escalated("c1", "echo x > a.txt")), finalMsg},
			want:   map[string]string{"c1": "deny:escalation_requested finish:escalation_requested"}},
		{name: "escalation-approved", approval: "on-request", mode: "workspace-write",
			script:  []string{line(escalated("c1", "echo x > a.txt")), finalMsg},
			answers: []events.ReviewDecision{events.Approved},
			want:    map[string]string{"c1": "ask:escalation_requested run_unsandboxed:user_approved finish:completed"}},
		{name: "dangerous-command", approval: "on-request", mode: "workspace-write",
			script:  []string{line(shell("c1", "rm -rf gone")), finalMsg},
			answers: []events.ReviewDecision{events.Denied},
			want:    map[string]string{"c1": "ask:dangerous_command deny:user_denied finish:user_denied"}},
		{name: "rules", approval: "on-request", mode: "workspace-write",
			rules: `prefix_rule(pattern=["git", "push"], decision="forbidden")` + "\n" + `prefix_rule(pattern=["printf"], decision="allow")` + "\n",
			script: []string{line(`{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["git","push"]}}`,
				`{"type":"function_call","call_id":"c2","name":"shell","arguments":{"command":["printf","ok"]}}`), finalMsg},
			want: map[string]string{
				"c1": "deny:rule_forbidden finish:rule_forbidden",
				"c2": "run_unsandboxed:rule_allow finish:completed"}},
		{name: "session-grant", approval: "untrusted", mode: "workspace-write",
			script:  []string{line(shell("c1", "echo g > g.txt")), line(shell("c2", "echo g > g.txt")), finalMsg},
			answers: []events.ReviewDecision{events.ApprovedForSession},
			want: map[string]string{
				"c1": "ask:untrusted_policy run_sandboxed:user_approved_for_session finish:completed",
				"c2": "run_sandboxed:session_grant finish:completed"}},
		{name: "amendment", approval: "untrusted", mode: "workspace-write",
			script: []string{line(`{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["touch","amended.txt"]}}`),
				line(`{"type":"function_call","call_id":"c2","name":"shell","arguments":{"command":["touch","amended.txt"]}}`), finalMsg},
			answers: []events.ReviewDecision{events.ApprovedExecpolicyAmendment},
			want: map[string]string{
				"c1": "ask:untrusted_policy run_sandboxed:user_amendment finish:completed",
				"c2": "run_unsandboxed:rule_allow finish:completed"}},
		{name: "outside-writable-roots", approval: "never", mode: "workspace-write",
			script: []string{line(patch("p1", "/var/tmp/docket-golden-outside.txt")), finalMsg},
			want:   map[string]string{"p1": "deny:outside_writable_roots finish:outside_writable_roots"}},
		{name: "danger-full-access", approval: "never", mode: "danger-full-access",
			script: []string{line(shell("c1", "echo hi > a.txt")), finalMsg},
			want:   map[string]string{"c1": "run_unsandboxed:danger_full_access finish:completed"}},
		{name: "invalid-call", approval: "on-request", mode: "workspace-write",
			script: []string{line(`{"type":"function_call","call_id":"c1","name":"no_such_tool","arguments":{}}`), finalMsg},
			want:   map[string]string{"c1": "fail:invalid_call"}},
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// paths reads each call's transitions from a journal as "event:cause".
func paths(t *testing.T, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range readAll(t, path) {
		if r.Kind != events.KindTransition {
			continue
		}
		b, err := r.Decode()
		if err != nil {
			t.Fatalf("%s seq %d: %v", path, r.Seq, err)
		}
		tr := b.(*events.Transition)
		out[tr.CallID] = strings.TrimSpace(out[tr.CallID] + " " + tr.Event + ":" + tr.Cause)
	}
	return out
}

func checkPaths(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: call %s went\n  %s\nwant\n  %s", what, id, got[id], w)
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("%s: unexpected call %s: %s", what, id, got[id])
		}
	}
}

// passableDeadline is a context whose deadline passes when the recorder
// says so (Err and Cause are context.DeadlineExceeded, as for a real
// deadline), so the recording does not race a clock.
type passableDeadline struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func (d *passableDeadline) pass()                       { d.once.Do(func() { close(d.done) }) }
func (d *passableDeadline) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }
func (d *passableDeadline) Done() <-chan struct{}       { return d.done }
func (d *passableDeadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// startedRunner tells when the first command has started.
type startedRunner struct {
	engine.Runner
	once    sync.Once
	started chan struct{}
}

func (r *startedRunner) Run(ctx context.Context, req engine.RunRequest) (events.ExecOutcome, error) {
	r.once.Do(func() { close(r.started) })
	return r.Runner.Run(ctx, req)
}

// recordCauses runs a cause scenario for real and returns its journal.
func recordCauses(t *testing.T, sc causeScenario) string {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	// What the retried scenarios write outside the workspace.
	t.Cleanup(func() {
		for _, f := range []string{"docket-golden-causes.txt", "docket-golden-causes-2.txt", "docket-golden-causes-3.txt"} {
			_ = os.Remove(filepath.Join("/var/tmp", f))
		}
	})
	mdl, err := script.Parse(sc.name, []byte(strings.Join(sc.script, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	mode, err := policy.ParseSandboxMode(sc.mode)
	if err != nil {
		t.Fatal(err)
	}
	plan := workspace.SandboxPlan(policy.SandboxPolicy{Mode: mode}, ws, "", false)
	exe, _ := os.Executable()
	id := "golden-cause-" + sc.name
	cfg := engine.Config{SessionID: id, Home: home, Cwd: ws, Plan: plan, Model: mdl, DocketVersion: "test",
		Session:         events.SessionConfig{ApprovalPolicy: sc.approval, SandboxMode: sc.mode},
		Tools:           []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}},
		Approver:        &enginetest.ScriptedApprover{Source: events.SourceFlag, Answers: sc.answers},
		ApprovalTimeout: sc.timeout,
	}
	if sc.rules != "" {
		cfg.Rules = []events.RuleSource{{Path: filepath.Join(home, "rules", "default.rules"), Text: sc.rules}}
	}
	runner := &startedRunner{Runner: &engine.ProcessRunner{HelperPath: exe}, started: make(chan struct{})}
	cfg.Runner = runner
	j, err := journal.Create(home, id, time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	path := j.Path()
	s, err := engine.Start(cfg, j)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	switch sc.stop {
	case "cancel":
		c, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() { <-runner.started; cancel() }()
		ctx = c
	case "deadline":
		d := &passableDeadline{Context: ctx, done: make(chan struct{})}
		go func() { <-runner.started; d.pass() }()
		ctx = d
	}
	if _, err := s.Turn(ctx, "do the thing"); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if *update {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(causeDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(causeDir, sc.name+journal.Ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// TestCauseJournalsRecordWhatDesignSays records every cause scenario for
// real and checks each call's path against the hand-written table, then
// verify-replays it.
func TestCauseJournalsRecordWhatDesignSays(t *testing.T) {
	t.Parallel()
	for _, sc := range causeScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			path := recordCauses(t, sc)
			checkPaths(t, "fresh recording", paths(t, path), sc.want)
			if err := verifyBounded(t, path); err != nil {
				t.Fatalf("verify replay of %s: %v", filepath.Base(path), err)
			}
		})
	}
}

// TestGoldenCauseJournals checks the committed journals against the same
// hand-written table and verify-replays them: a golden file re-recorded
// after a change of behaviour fails here, whatever -update wrote.
func TestGoldenCauseJournals(t *testing.T) {
	t.Parallel()
	for _, sc := range causeScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			path := filepath.Join(causeDir, sc.name+journal.Ext)
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("golden journal missing (record with go test ./replay -run TestCauseJournals -update): %v", err)
			}
			checkPaths(t, "golden journal", paths(t, path), sc.want)
			if err := verifyBounded(t, path); err != nil {
				t.Fatalf("verify replay of %s: %v", filepath.Base(path), err)
			}
		})
	}
}

// TestAuditTextNamesWhoStoppedTheTurn: the audit of a turn the operator
// cancelled or a deadline ended shows that cause, and never blames the
// user; the user's own abort still says user_abort.
func TestAuditTextNamesWhoStoppedTheTurn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		journal, want, never string
	}{
		{journal: "cancelled", want: "--interrupt--> done  [cancelled]", never: "user_abort"},
		{journal: "deadline", want: "--interrupt--> done  [deadline]", never: "user_abort"},
		{journal: "user-abort", want: "[user_abort]"},
	} {
		t.Run(tc.journal, func(t *testing.T) {
			var buf strings.Builder
			path := filepath.Join(causeDir, tc.journal+journal.Ext)
			if err := audit.Stream(context.Background(), path, audit.Options{}, audit.NewTextWriter(&buf, audit.Options{})); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), tc.want) {
				t.Fatalf("audit text lacks %q:\n%s", tc.want, buf.String())
			}
			if tc.never != "" && strings.Contains(buf.String(), tc.never) {
				t.Fatalf("audit text blames the user (%s):\n%s", tc.never, buf.String())
			}
		})
	}
}
