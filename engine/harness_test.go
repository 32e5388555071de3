package engine_test

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
	"github.com/docket-engine/docket/states/policy"
)

// fixture is one session in a temp home and workspace, with a real journal
// and the real sandboxed runner.
type fixture struct {
	t       *testing.T
	home    string
	ws      string
	outside string // a directory outside every writable root
	j       *journal.Journal
	s       *engine.Session
	appr    *enginetest.ScriptedApprover
	notices []engine.Notice
	mu      sync.Mutex
	watch   func(engine.Notice)
}

// s2 sets a function called with every notice, from the engine's goroutines.
func (f *fixture) s2(fn func(engine.Notice)) {
	f.mu.Lock()
	f.watch = fn
	f.mu.Unlock()
}

// asked returns the approval requests the fixture's scripted approver was
// asked (none when the test supplied its own approver).
func (f *fixture) asked() []engine.ApprovalRequest {
	if f.appr == nil {
		return nil
	}
	return f.appr.Asked()
}

type setup struct {
	approval string
	mode     string
	script   string
	answers  []events.ReviewDecision
	runner   engine.Runner
	approver engine.Approver
	timeout  time.Duration
	risk     engine.RiskAssessor
	rules    []events.RuleSource
	network  bool // workspace-write network_access
	hooks    engine.Hooks
	tools    []engine.Tool // nil: shell and apply_patch
}

func newFixture(t *testing.T, st setup) *fixture {
	t.Helper()
	f := &fixture{t: t, home: t.TempDir(), ws: t.TempDir()}
	out, err := os.MkdirTemp("/var/tmp", "docket-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	f.outside = out
	mdl, err := script.Parse("script", []byte(strings.ReplaceAll(strings.ReplaceAll(st.script, "$OUT", out), "$WS", f.ws)))
	if err != nil {
		t.Fatal(err)
	}
	sc := events.SessionConfig{ApprovalPolicy: st.approval, SandboxMode: st.mode, TmpdirEnv: os.Getenv("TMPDIR"), NetworkAccess: st.network}
	plan, err := sessionPlan(sc, f.ws)
	if err != nil {
		t.Fatal(err)
	}
	runner := st.runner
	if runner == nil {
		exe, _ := os.Executable()
		runner = &engine.ProcessRunner{HelperPath: exe}
	}
	id := "sess-" + filepath.Base(f.ws)
	f.j, err = journal.Create(f.home, id, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.j.Close() })
	var appr engine.Approver = st.approver
	if appr == nil {
		f.appr = &enginetest.ScriptedApprover{Answers: st.answers}
		appr = f.appr
	}
	tools := st.tools
	if tools == nil {
		tools = []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}
	}
	f.s, err = engine.Start(engine.Config{
		SessionID: id, Home: f.home, Cwd: f.ws, Session: sc, Plan: plan,
		Model: mdl, Approver: appr, Runner: runner, ApprovalTimeout: st.timeout, Risk: st.risk, Rules: st.rules,
		Observer: observerFunc(func(n engine.Notice) {
			f.mu.Lock()
			f.notices = append(f.notices, n)
			w := f.watch
			f.mu.Unlock()
			if w != nil {
				w(n)
			}
		}),
		Tools: tools, Hooks: st.hooks,
	}, f.j)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func sessionPlan(sc events.SessionConfig, cwd string) (events.SandboxPlan, error) {
	mode, err := policy.ParseSandboxMode(sc.SandboxMode)
	if err != nil {
		return events.SandboxPlan{}, err
	}
	sp := policy.SandboxPolicy{Mode: mode, WritableRoots: sc.WritableRoots, NetworkAccess: sc.NetworkAccess}
	return workspace.SandboxPlan(sp, cwd, sc.TmpdirEnv, false), nil
}

func (f *fixture) turn(prompt string) engine.TurnResult {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := f.s.Turn(ctx, prompt)
	if err != nil {
		f.t.Fatalf("turn: %v", err)
	}
	return res
}

// records returns the journal's decoded bodies of one kind for a call.
func (f *fixture) transitions(callID string) []events.Transition {
	f.t.Helper()
	recs, err := f.j.Call(callID)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []events.Transition
	for _, r := range recs {
		if r.Kind == events.KindTransition {
			b, _ := r.Decode()
			out = append(out, *b.(*events.Transition))
		}
	}
	return out
}

// path renders a call's transitions as "event:cause" steps.
func (f *fixture) path(callID string) string {
	var parts []string
	for _, t := range f.transitions(callID) {
		parts = append(parts, t.Event+":"+t.Cause)
	}
	return strings.Join(parts, " ")
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// observerFunc adapts a function to engine.Observer.
type observerFunc func(engine.Notice)

// Notify calls f.
func (f observerFunc) Notify(n engine.Notice) { f(n) }
