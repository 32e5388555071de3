package engine_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/ctxwindow"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
)

// memSession starts a session on a MemLog with a scripted model, keeping
// its notices.
func memSession(t *testing.T, sc events.SessionConfig, lines ...string) (*engine.Session, *enginetest.MemLog, func() []engine.Notice) {
	t.Helper()
	m, err := script.Parse("script", []byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var notices []engine.Notice
	log := &enginetest.MemLog{}
	if sc.ApprovalPolicy == "" {
		sc.ApprovalPolicy, sc.SandboxMode = "untrusted", "read-only"
	}
	s, err := engine.Start(engine.Config{SessionID: "s", Cwd: t.TempDir(), Home: t.TempDir(), Session: sc,
		Plan: events.SandboxPlan{Mode: events.SandboxReadOnly}, Model: m, Approver: &enginetest.ScriptedApprover{},
		Runner: &enginetest.FakeRunner{}, Tools: []engine.Tool{engine.ShellTool{}},
		Observer: observerFunc(func(n engine.Notice) { mu.Lock(); notices = append(notices, n); mu.Unlock() })}, log)
	if err != nil {
		t.Fatal(err)
	}
	return s, log, func() []engine.Notice { mu.Lock(); defer mu.Unlock(); return append([]engine.Notice(nil), notices...) }
}

func TestContextStatus(t *testing.T) {
	t.Parallel()
	const reply = `{"output":[{"type":"message","content":"ok"}],"usage":{"input_tokens":700,"output_tokens":150}}`
	const silent = `{"output":[{"type":"message","content":"ok"}]}`
	for _, tc := range []struct {
		name      string
		sc        events.SessionConfig
		line      string
		used      int64 // after one turn of prompt "hello"
		estimated bool
		window    int64
		warned    bool
	}{
		{name: "reported usage, known window", sc: events.SessionConfig{Model: "gpt-5-codex"}, line: reply, used: 850, window: 272_000},
		{name: "window from the config", sc: events.SessionConfig{Model: "x", ContextWindow: 1000}, line: reply, used: 850, window: 1000, warned: true},
		{name: "no usage reported: an estimate", sc: events.SessionConfig{Model: "x", ContextWindow: 1000}, line: silent,
			used: ctxwindow.EstimateText("hello") + ctxwindow.EstimateText("ok"), estimated: true, window: 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, notices := memSession(t, tc.sc, tc.line)
			if st := s.ContextStatus(); st.Used != 0 || !st.Estimated {
				t.Fatalf("before any turn: %+v", st)
			}
			mustTurn(t, s, "hello")
			st := s.ContextStatus()
			if st.Used != tc.used || st.Estimated != tc.estimated || st.Window != tc.window {
				t.Fatalf("status %+v, want used %d estimated %v window %d", st, tc.used, tc.estimated, tc.window)
			}
			warned := 0
			for _, n := range notices() {
				if n.Type == engine.NoticeContextWarning {
					warned++
					if n.Context == nil || n.Context.Used != tc.used {
						t.Fatalf("warning carries %+v", n.Context)
					}
				}
			}
			if (warned == 1) != tc.warned || warned > 1 {
				t.Fatalf("%d warnings, want warned=%v", warned, tc.warned)
			}
		})
	}
}

// TestWarningIsSaidOnceUntilCompaction: a second full response does not
// warn again; after a compaction empties the context, it may.
func TestWarningIsSaidOnceUntilCompaction(t *testing.T) {
	t.Parallel()
	const full = `{"output":[{"type":"message","content":"ok"}],"usage":{"input_tokens":900,"output_tokens":10}}`
	const summary = `{"compact":true,"output":[{"type":"message","content":"short"}]}`
	s, _, notices := memSession(t, events.SessionConfig{Model: "x", ContextWindow: 1000}, full, full, summary, full)
	mustTurn(t, s, "one")
	mustTurn(t, s, "two")
	count := func() int {
		n := 0
		for _, x := range notices() {
			if x.Type == engine.NoticeContextWarning {
				n++
			}
		}
		return n
	}
	if c := count(); c != 1 {
		t.Fatalf("%d warnings after two full turns, want 1", c)
	}
	if _, err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := s.ContextStatus(); st.Used >= 100 || !st.Estimated {
		t.Fatalf("after compaction %+v, want a small estimate", st)
	}
	mustTurn(t, s, "three")
	if c := count(); c != 2 {
		t.Fatalf("%d warnings after refilling, want 2", c)
	}
}

func TestCompactRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, log, _ := memSession(t, events.SessionConfig{})
	if _, err := s.Compact(ctx); !errors.Is(err, engine.ErrNothingToCompact) {
		t.Fatalf("empty conversation: %v", err)
	}
	// A parked turn: the call waits for a decision that never comes.
	parked, plog, _ := memSession(t, events.SessionConfig{},
		`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["touch","x"]}}]}`)
	res, err := parked.Turn(ctx, "go")
	if err != nil || res.Status != events.TurnParked {
		t.Fatalf("turn %+v, %v; want parked", res, err)
	}
	restored, err := engine.Restore(engine.Config{Model: &script.Model{}, Approver: &enginetest.ScriptedApprover{}, Runner: &enginetest.FakeRunner{},
		Tools: []engine.Tool{engine.ShellTool{}}}, &enginetest.MemLog{}, plog.Records())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := restored.Compact(ctx); !errors.Is(err, engine.ErrTurnPending) {
		t.Fatalf("parked turn: %v", err)
	}
	if n := len(log.Records()); n != 1 {
		t.Fatalf("refused compactions wrote %d records beyond session_started", n-1)
	}
}

func mustTurn(t *testing.T, s *engine.Session, prompt string) {
	t.Helper()
	res, err := s.Turn(context.Background(), prompt)
	if err != nil || res.Status != events.TurnCompleted {
		t.Fatalf("turn %q: %+v, %v", prompt, res, err)
	}
}

// The status adds to the last reported usage what came after it, and
// after a compaction counts only what replaced the conversation: the
// running estimate follows every way the conversation changes.
func TestContextStatusFollowsTheConversation(t *testing.T) {
	const reply = `{"output":[{"type":"message","content":"ok"}],"usage":{"input_tokens":700,"output_tokens":150}}`
	const silent = `{"output":[{"type":"message","content":"a longer answer"}]}`
	const summary = `{"compact":true,"output":[{"type":"message","content":"short"}]}`
	s, _, _ := memSession(t, events.SessionConfig{Model: "x", ContextWindow: 100_000}, silent, reply, silent, summary, silent)
	mustTurn(t, s, "one")
	if st, want := s.ContextStatus(), ctxwindow.EstimateText("one")+ctxwindow.EstimateText("a longer answer"); st.Used != want || !st.Estimated {
		t.Fatalf("after a turn without usage: %+v, want an estimate of %d", st, want)
	}
	mustTurn(t, s, "two")
	if st := s.ContextStatus(); st.Used != 850 || st.Estimated {
		t.Fatalf("after a reported usage: %+v, want 850 exactly", st)
	}
	mustTurn(t, s, "three")
	if st, want := s.ContextStatus(), 850+ctxwindow.EstimateText("three")+ctxwindow.EstimateText("a longer answer"); st.Used != want || !st.Estimated {
		t.Fatalf("after a turn past the usage: %+v, want %d", st, want)
	}
	if _, err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st, want := s.ContextStatus(), ctxwindow.EstimateItems([]events.Item{engine.SummaryItem("short")}); st.Used != want || !st.Estimated {
		t.Fatalf("after a compaction: %+v, want the summary's %d", st, want)
	}
	mustTurn(t, s, "four")
	if st, want := s.ContextStatus(), ctxwindow.EstimateItems([]events.Item{engine.SummaryItem("short")})+ctxwindow.EstimateText("four")+ctxwindow.EstimateText("a longer answer"); st.Used != want {
		t.Fatalf("after a turn past the compaction: %+v, want %d", st, want)
	}
}
