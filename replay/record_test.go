package replay_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/states/policy"
)

var update = flag.Bool("update", false, "re-record the golden journals in testdata/journals")

// flags answers in order, as --decisions does, and parks when it runs out.
func flags(list ...string) *enginetest.ScriptedApprover {
	a := &enginetest.ScriptedApprover{Source: events.SourceFlag}
	for _, d := range list {
		a.Answers = append(a.Answers, events.ReviewDecision(d))
	}
	return a
}

// crashRunner lets calls run until one whose command contains the marker,
// and then stops the session as a kill would: the caller abandons the
// journal without committing.
type crashRunner struct {
	engine.Runner
	marker  string
	crashed chan struct{}
}

func (c *crashRunner) Run(ctx context.Context, req engine.RunRequest) (events.ExecOutcome, error) {
	if c.marker != "" && strings.Contains(strings.Join(req.Argv, " "), c.marker) {
		close(c.crashed)
		<-ctx.Done()
		return events.ExecOutcome{}, ctx.Err()
	}
	return c.Runner.Run(ctx, req)
}

// scenario is one recorded session: a policy, a model script, the answers
// for each process, and optionally a crash.
type scenario struct {
	name      string
	approval  string
	mode      string
	script    []string
	answers   []string
	crashOn   string   // a command substring at which the first process dies
	resumes   []string // answers for each resumed process, in order
	resumeMsg string   // a prompt for the last resumed process
}

func shell(id, cmd string) string {
	return fmt.Sprintf(`{"type":"function_call","call_id":%q,"name":"shell","arguments":{"command":["bash","-lc",%q]}}`, id, cmd)
}

func line(items ...string) string { return `{"output":[` + strings.Join(items, ",") + `]}` }

const finalMsg = `{"output":[{"type":"message","content":"done"}],"usage":{"input_tokens":5,"output_tokens":1}}`

func scenarios() []scenario {
	return []scenario{
		{name: "approval", approval: "untrusted", mode: "workspace-write",
			script: []string{line(shell("c1", "echo hi > a.txt")), finalMsg}, answers: []string{"approved"}},
		{name: "denial", approval: "untrusted", mode: "workspace-write",
			script: []string{line(shell("c1", "echo hi > a.txt")), finalMsg}, answers: []string{"denied"}},
		{name: "sandbox-retry", approval: "on-failure", mode: "workspace-write",
			script: []string{line(shell("c1", "echo hi > /var/tmp/docket-golden-retry.txt; rm -f /var/tmp/docket-golden-retry.txt")), finalMsg}, answers: []string{"approved"}},
		{name: "apply-patch", approval: "on-request", mode: "workspace-write",
			script: []string{line(`{"type":"custom_tool_call","call_id":"p1","name":"apply_patch","input":"*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"}`), finalMsg}},
		{name: "parallel", approval: "on-request", mode: "workspace-write",
			script: []string{line(shell("a", "sleep 0.2; echo a"), shell("b", "echo b"), shell("c", "echo c")), finalMsg}},
		{name: "session-grant", approval: "untrusted", mode: "workspace-write",
			script: []string{line(shell("c1", "echo x > g.txt")), line(shell("c2", "echo x > g.txt")), finalMsg}, answers: []string{"approved_for_session"}},
		{name: "abort", approval: "untrusted", mode: "workspace-write",
			script: []string{line(shell("c1", "echo one > one.txt"), `{"type":"custom_tool_call","call_id":"p1","name":"apply_patch","input":"*** Begin Patch\n*** Add File: two.txt\n+2\n*** End Patch\n"}`), finalMsg}, answers: []string{"abort"}},
		{name: "parked-resume", approval: "untrusted", mode: "workspace-write",
			script: []string{line(shell("c1", "echo hi > a.txt")), finalMsg}, resumes: []string{"approved"}},
		{name: "crash-resume", approval: "on-request", mode: "workspace-write",
			script:  []string{line(shell("c1", "echo before > b.txt")), line(shell("c2", "sleep 30 # crash-here")), finalMsg, finalMsg},
			crashOn: "crash-here", resumes: []string{""}, resumeMsg: "carry on"},
	}
}

// record runs a scenario for real (real sandbox, real journal) and copies
// the journal to testdata/journals/NAME.docket.
func record(t *testing.T, sc scenario) string {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	mdl, err := script.Parse(sc.name, []byte(strings.Join(sc.script, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	cfgSess := events.SessionConfig{ApprovalPolicy: sc.approval, SandboxMode: sc.mode}
	mode, _ := policy.ParseSandboxMode(sc.mode)
	plan := workspace.SandboxPlan(policy.SandboxPolicy{Mode: mode}, ws, "", false)
	exe, _ := os.Executable()
	started := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	id := "golden-" + sc.name
	base := engine.Config{SessionID: id, Home: home, Cwd: ws, Session: cfgSess, Plan: plan, Model: mdl,
		Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}, DocketVersion: "test"}
	j, err := journal.Create(home, id, started)
	if err != nil {
		t.Fatal(err)
	}
	path := j.Path()
	cr := &crashRunner{Runner: &engine.ProcessRunner{HelperPath: exe}, marker: sc.crashOn, crashed: make(chan struct{})}
	cfg := base
	cfg.Approver, cfg.Runner = flags(sc.answers...), cr
	s, err := engine.Start(cfg, j)
	if err != nil {
		t.Fatal(err)
	}
	prompt := "do the thing"
	if sc.crashOn != "" {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); s.Turn(ctx, prompt) }()
		<-cr.crashed
		j.Abandon() // the kill: nothing buffered reaches the disk
		cancel()
		<-done
	} else {
		if _, err := s.Turn(context.Background(), prompt); err != nil {
			t.Fatal(err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for i, ans := range sc.resumes {
		j, err = journal.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := j.All()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range recs {
			if r.Kind == events.KindModelResponse {
				n++
			}
		}
		mdl2, _ := script.Parse(sc.name, []byte(strings.Join(sc.script, "\n")))
		mdl2.Skip(n)
		cfg := base
		cfg.Model, cfg.Approver, cfg.Runner = mdl2, flags(nonEmpty(ans)...), &engine.ProcessRunner{HelperPath: exe}
		s, err := engine.Resume(cfg, j, recs, events.SessionResumed{PID: 1, Decisions: ans})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := s.Pending(); ok {
			if _, err := s.Continue(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if i == len(sc.resumes)-1 && sc.resumeMsg != "" {
			if _, err := s.Turn(context.Background(), sc.resumeMsg); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if *update {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "testdata", "journals", sc.name+journal.Ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
