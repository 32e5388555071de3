package replay_test

import (
	"context"
	"encoding/json"
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
	"github.com/docket-engine/docket/replay"
	"github.com/docket-engine/docket/states/policy"
)

// session is one engine process over a journal, for the tests below.
type session struct {
	home, ws, id string
	script       []string
}

func (s *session) config(t *testing.T, appr engine.Approver, runner engine.Runner, skip int) engine.Config {
	t.Helper()
	mdl, err := script.Parse(s.id, []byte(strings.Join(s.script, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	mdl.Skip(skip)
	mode, _ := policy.ParseSandboxMode("workspace-write")
	return engine.Config{SessionID: s.id, Home: s.home, Cwd: s.ws,
		Session: events.SessionConfig{ApprovalPolicy: "untrusted", SandboxMode: "workspace-write"},
		Plan:    workspace.SandboxPlan(policy.SandboxPolicy{Mode: mode}, s.ws, "", false), Model: mdl,
		Approver: appr, Runner: runner, Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}, DocketVersion: "test"}
}

// argv is a shell call with a plain argument vector.
func argv(id string, args ...string) string {
	b, _ := json.Marshal(map[string]any{"type": "function_call", "call_id": id, "name": "shell",
		"arguments": map[string]any{"command": args}})
	return string(b)
}

// verifyBounded verifies with a deadline, so that a replay that would hang
// fails the test instead of stalling it.
func verifyBounded(t *testing.T, path string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := replay.VerifyFile(ctx, path, replay.Options{})
	return err
}

func hasDecision(t *testing.T, path string, d events.ReviewDecision) bool {
	for _, r := range readAll(t, path) {
		if r.Kind == events.KindDecision {
			b, _ := r.Decode()
			if b.(*events.Decision).Decision == d {
				return true
			}
		}
	}
	return false
}

func TestApprovalTimeoutReplaysAsATimeout(t *testing.T) {
	t.Parallel()
	s := &session{home: t.TempDir(), ws: t.TempDir(), id: "timeout",
		script: []string{line(shell("c1", "echo one > one.txt")), line(shell("c2", "echo two > two.txt")), finalMsg}}
	exe, _ := os.Executable()
	cfg := s.config(t, &enginetest.ScriptedApprover{Answers: []events.ReviewDecision{enginetest.Wait, events.Approved}},
		&engine.ProcessRunner{HelperPath: exe}, 0)
	cfg.ApprovalTimeout = 20 * time.Millisecond
	j, err := journal.Create(s.home, s.id, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	sess, err := engine.Start(cfg, j)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if !hasDecision(t, j.Path(), events.TimedOut) {
		t.Fatal("the recorded session has no timed-out approval")
	}
	if err := verifyBounded(t, j.Path()); err != nil {
		t.Fatalf("a session with an approval timeout does not verify-replay: %v", err)
	}
}

func TestSavedPrefixRuleReplaysWithoutWritingTheRulesFile(t *testing.T) {
	t.Parallel()
	s := &session{home: t.TempDir(), ws: t.TempDir(), id: "amend",
		script: []string{line(argv("c1", "touch", "x.txt")), line(argv("c2", "touch", "x.txt")), finalMsg}}
	exe, _ := os.Executable()
	j, err := journal.Create(s.home, s.id, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// "p" for c1 saves its prefix; c2, the same command, is then allowed
	// by the rule without a question.
	appr := &enginetest.ScriptedApprover{Answers: []events.ReviewDecision{events.ApprovedExecpolicyAmendment}}
	sess, err := engine.Start(s.config(t, appr, &engine.ProcessRunner{HelperPath: exe}, 0), j)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if len(appr.Asked()) != 1 || !hasDecision(t, j.Path(), events.ApprovedExecpolicyAmendment) {
		t.Fatalf("asked %d times; want one question answered with a saved rule", len(appr.Asked()))
	}
	rulesFile := filepath.Join(s.home, "rules", "default.rules")
	before, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatalf("the session saved no rule: %v", err)
	}
	if err := os.Remove(rulesFile); err != nil {
		t.Fatal(err)
	}
	if err := verifyBounded(t, j.Path()); err != nil {
		t.Fatalf("a session with a saved prefix rule does not verify-replay: %v", err)
	}
	if _, err := os.Stat(rulesFile); err == nil {
		t.Fatal("verify replay wrote the user's rules file")
	}
	if !strings.Contains(string(before), `"touch", "x.txt"`) {
		t.Fatalf("rules file %q", before)
	}
}

// lastCrashRunner runs every call but the marked one; the marked one's run
// waits until the others have completed (their tool outputs journaled, as
// its Notify hears) and then reports the crash, so the journal holds their
// outcomes when the "process" dies.
type lastCrashRunner struct {
	engine.Runner
	marker  string
	others  sync.WaitGroup
	crashed chan struct{}
}

// Notify counts the other calls' completions.
func (c *lastCrashRunner) Notify(n engine.Notice) {
	if n.Type == engine.NoticeCallCompleted && !strings.Contains(strings.Join(n.Command, " "), c.marker) {
		c.others.Done()
	}
}

func (c *lastCrashRunner) Run(ctx context.Context, req engine.RunRequest) (events.ExecOutcome, error) {
	if strings.Contains(strings.Join(req.Argv, " "), c.marker) {
		c.others.Wait()
		close(c.crashed)
		<-ctx.Done()
		return events.ExecOutcome{}, ctx.Err()
	}
	return c.Runner.Run(ctx, req)
}

func TestCrashDuringParallelCallsVerifiesAfterResume(t *testing.T) {
	t.Parallel()
	s := &session{home: t.TempDir(), ws: t.TempDir(), id: "parallel-crash",
		script: []string{line(shell("a", "sleep 30 # crash-here"), shell("b", "echo b > b.txt"), shell("c", "echo c > c.txt")), finalMsg}}
	exe, _ := os.Executable()
	cr := &lastCrashRunner{Runner: &engine.ProcessRunner{HelperPath: exe}, marker: "crash-here", crashed: make(chan struct{})}
	cr.others.Add(2)
	j, err := journal.Create(s.home, s.id, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.config(t, flags("approved", "approved", "approved"), cr, 0)
	cfg.Observer = cr
	sess, err := engine.Start(cfg, j)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _, _ = sess.Turn(ctx, "go") }()
	<-cr.crashed
	if err := j.Commit(); err != nil { // what the others did is on disk, as a commit before the kill would leave it
		t.Fatal(err)
	}
	j.Abandon()
	cancel()
	<-done

	if err := verifyBounded(t, j.Path()); err != nil {
		t.Fatalf("the crashed journal, before resume, does not verify-replay: %v", err)
	}
	j, err = journal.Open(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	recs, err := j.All()
	if err != nil {
		t.Fatal(err)
	}
	outcomes := 0
	for _, r := range recs {
		if r.Kind == events.KindExecOutcome {
			outcomes++
		}
	}
	if outcomes != 2 {
		t.Fatalf("the crashed journal has %d outcomes; want b's and c's", outcomes)
	}
	n := 0
	for _, r := range recs {
		if r.Kind == events.KindModelResponse {
			n++
		}
	}
	rs, err := engine.Resume(s.config(t, flags(), &engine.ProcessRunner{HelperPath: exe}, n), j, recs, events.SessionResumed{PID: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rs.Continue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := verifyBounded(t, j.Path()); err != nil {
		t.Fatalf("the resumed journal does not verify-replay: %v", err)
	}
}
