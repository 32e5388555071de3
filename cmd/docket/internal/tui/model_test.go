package tui

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

var update = flag.Bool("update", false, "rewrite the golden screens under testdata")

// fakeBackend is a session for the model's tests: Turn blocks until its
// context ends or release is closed.
type fakeBackend struct {
	mu        sync.Mutex
	info      Info
	prompts   []string
	cancelled bool
	release   chan struct{}
	policy    string
	matches   []string
}

func newFake() *fakeBackend {
	return &fakeBackend{release: make(chan struct{}), info: Info{SessionID: "019abcde-0000-7000-8000-000000000000",
		Model: "gpt-5-codex", ApprovalPolicy: "on-request", SandboxMode: "workspace-write",
		Layers: []string{"landlock:v7", "seccomp"}, TokensUsed: 12_345, Window: 272_000}}
}

func (f *fakeBackend) Info() Info { f.mu.Lock(); defer f.mu.Unlock(); return f.info }
func (f *fakeBackend) Turn(ctx context.Context, p string) (engine.TurnResult, error) {
	f.mu.Lock()
	f.prompts = append(f.prompts, p)
	f.mu.Unlock()
	select {
	case <-ctx.Done():
		f.mu.Lock()
		f.cancelled = true
		f.mu.Unlock()
		return engine.TurnResult{TurnID: "turn-1", Status: events.TurnAborted, Message: "the turn was cancelled"}, nil
	case <-f.release:
		return engine.TurnResult{TurnID: "turn-1", Status: events.TurnCompleted}, nil
	}
}
func (f *fakeBackend) Pending() bool { return false }
func (f *fakeBackend) Continue(context.Context) (engine.TurnResult, error) {
	return engine.TurnResult{}, nil
}
func (f *fakeBackend) SetApprovalPolicy(p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.policy, f.info.ApprovalPolicy = p, p
	return nil
}
func (f *fakeBackend) Diff(context.Context) (string, error) {
	return "diff --git a/x b/x\n+added\n", nil
}
func (f *fakeBackend) Audit(context.Context) (string, error)          { return "call c1: done", nil }
func (f *fakeBackend) MCP(context.Context) (string, error)            { return "no MCP servers", nil }
func (f *fakeBackend) New(context.Context) (string, error)            { return "", nil }
func (f *fakeBackend) Resume(context.Context, string) (string, error) { return "", nil }
func (f *fakeBackend) Sessions() ([]SessionSummary, error)            { return nil, nil }
func (f *fakeBackend) Complete(q string, limit int) []string {
	var out []string
	for _, m := range f.matches {
		if strings.Contains(m, q) && len(out) < limit {
			out = append(out, m)
		}
	}
	return out
}

func newTestModel(b Backend) *Model {
	return New(context.Background(), b, Options{Width: 80, Height: 30})
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Fatalf("screen differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func key(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(key(string(r)))
	}
}

// Streamed deltas show as they come; the final message replaces them and
// goes to the scrollback once finished.
func TestStreamedTextThenFinalMessage(t *testing.T) {
	m := newTestModel(newFake())
	m.Update(noticesMsg{{Type: engine.NoticeTextDelta, Text: "Hel"}, {Type: engine.NoticeTextDelta, Text: "lo wor"}})
	if v := m.View(); !strings.Contains(v, "Hello wor") {
		t.Fatalf("the streamed text is not on screen:\n%s", v)
	}
	_, cmd := m.Update(noticesMsg{{Type: engine.NoticeMessage, Text: "Hello world, **done**."}})
	_, printed, _ := runAll(cmd)
	if len(printed) != 1 || !strings.Contains(printed[0], "Hello world") {
		t.Fatalf("the finished message was not printed to the scrollback: %q", printed)
	}
	if strings.Contains(m.View(), "Hello wor") {
		t.Fatalf("the finished message stayed in the live part:\n%s", m.View())
	}
}

// A call's line follows its states, its output folds to the last lines,
// and model-supplied text cannot reach the terminal as escapes.
func TestCallLineFollowsStatesAndFoldsOutput(t *testing.T) {
	m := newTestModel(newFake())
	tr := func(to, cause string) engine.Notice {
		return engine.Notice{Type: engine.NoticeTransition, CallID: "c1", Transition: &events.Transition{CallID: "c1", To: to, Cause: cause}}
	}
	m.Update(noticesMsg{tr("awaitingDecision", "needs_approval")})
	if v := m.View(); !strings.Contains(v, "[waiting for approval]") {
		t.Fatalf("no waiting line:\n%s", v)
	}
	out := ""
	for i := range 10 {
		out += fmt.Sprintf("line %d\n", i)
	}
	m.Update(noticesMsg{tr("sandboxed", "user_approved"),
		{Type: engine.NoticeCallStarted, CallID: "c1", Tool: "shell", Command: []string{"bash", "-c", "echo \x1b[31mred"}},
		{Type: engine.NoticeCallOutput, CallID: "c1", Text: out}})
	golden(t, "call_running.golden", m.View())
	_, cmd := m.Update(noticesMsg{tr("done", "completed"), {Type: engine.NoticeCallCompleted, CallID: "c1", Tool: "shell", Status: engine.StatusCompleted, Text: out}})
	_, printed, _ := runAll(cmd)
	if len(printed) != 1 || !strings.Contains(printed[0], "✓") || !strings.Contains(printed[0], "6 earlier lines folded") {
		t.Fatalf("the finished call was not printed folded: %q", printed)
	}
}

// The overlay offers the line prompt's choices; f asks for feedback and
// the answer is a denial with it, from the user.
func TestApprovalOverlayDenyWithFeedback(t *testing.T) {
	m := newTestModel(newFake())
	reply := make(chan engine.Answer, 1)
	req := engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{CallID: "c7", RequestID: "r1", Kind: events.ApprovalPatch,
		Phase: events.PhaseInitial, Cwd: "/work/ws", Reason: "writes outside the workspace", Paths: []string{"/etc/hosts"}},
		Patch: "*** Begin Patch\n*** Update File: /etc/hosts\n@@\n-old\n+new\n*** End Patch\n"}
	m.Update(approvalMsg{req: req, reply: reply})
	golden(t, "overlay_patch.golden", m.View())
	m.Update(key("x"))
	if !strings.Contains(m.View(), "please answer y, s, n, f, a") {
		t.Fatalf("a wrong key is not explained:\n%s", m.View())
	}
	m.Update(key("f"))
	typeText(m, "use a drop-in file")
	m.Update(key("enter"))
	select {
	case ans := <-reply:
		if ans.Decision != events.Denied || ans.Feedback != "use a drop-in file" || ans.Source != events.SourceUser {
			t.Fatalf("answer %+v", ans)
		}
	default:
		t.Fatal("no answer was sent")
	}
	if len(m.overlays) != 0 {
		t.Fatal("the overlay stayed up after the answer")
	}
}

// A request withdrawn (its context ended) takes its overlay down unanswered.
func TestApprovalWithdrawn(t *testing.T) {
	m := newTestModel(newFake())
	reply := make(chan engine.Answer, 1)
	m.Update(approvalMsg{req: engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{CallID: "c1", RequestID: "r9"}}, reply: reply})
	m.Update(approvalGoneMsg{requestID: "r9"})
	if len(m.overlays) != 0 || len(reply) != 0 {
		t.Fatalf("overlays %d, answers %d after withdrawal", len(m.overlays), len(reply))
	}
}

// Ctrl-C interrupts the running turn (its context is cancelled, nothing
// is answered), and a second Ctrl-C quits.
func TestCtrlCInterruptsThenQuits(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	typeText(m, "do something long")
	_, cmd := m.Update(key("enter"))
	turnMsgs := make(chan tea.Msg, 1)
	go func() { msgs, _, _ := runAll(cmd); turnMsgs <- msgs }()
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.prompts) == 1 })
	_, cmd = m.Update(key("ctrl+c"))
	if _, _, quit := runAll(cmd); quit {
		t.Fatal("the first Ctrl-C quit")
	}
	done := (<-turnMsgs).([]tea.Msg)
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.cancelled })
	if len(done) != 1 {
		t.Fatalf("turn messages %v", done)
	}
	_, cmd = m.Update(done[0])
	_, printed, _ := runAll(cmd)
	if !strings.Contains(strings.Join(printed, "\n"), "turn interrupted") {
		t.Fatalf("the interrupt was not reported: %q", printed)
	}
	_, cmd = m.Update(key("ctrl+c"))
	if _, _, quit := runAll(cmd); !quit {
		t.Fatal("Ctrl-C while idle with nothing typed did not quit")
	}
}

// runAll runs a command to completion, waiting for every part.
func runAll(cmd tea.Cmd) (any, []string, bool) {
	var msgs []tea.Msg
	var printed []string
	quit := false
	var walk func(tea.Cmd)
	walk = func(c tea.Cmd) {
		if c == nil {
			return
		}
		msg := c()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				walk(c)
			}
			return
		}
		rv := reflect.ValueOf(msg)
		if msg != nil && rv.Kind() == reflect.Slice && rv.Type().Elem() == reflect.TypeOf(tea.Cmd(nil)) {
			for i := range rv.Len() {
				walk(rv.Index(i).Interface().(tea.Cmd))
			}
			return
		}
		switch {
		case msg == nil:
		case strings.HasSuffix(fmt.Sprintf("%T", msg), "printLineMessage"):
			printed = append(printed, rv.Field(0).String())
		default:
			if _, ok := msg.(tea.QuitMsg); ok {
				quit = true
				return
			}
			msgs = append(msgs, msg)
		}
	}
	walk(cmd)
	return msgs, printed, quit
}

// waitFor polls cond; the bound only stops a hang.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 1_000_000 {
		if cond() {
			return
		}
		runtimeGosched()
	}
	t.Fatal("condition never held")
}

// The @ popup completes the reference being typed; up/down walk the
// prompt history otherwise.
func TestCompletionAndHistory(t *testing.T) {
	f := newFake()
	f.matches = []string{"cmd/docket/main.go", "docs/cli.md"}
	m := newTestModel(f)
	typeText(m, "explain @cli")
	if v := m.View(); !strings.Contains(v, "› docs/cli.md") {
		t.Fatalf("no popup:\n%s", v)
	}
	m.Update(key("tab"))
	if got := m.input.Value(); got != "explain @docs/cli.md " {
		t.Fatalf("completed to %q", got)
	}
	m.history = []string{"first", "second"}
	m.historyPos = 2
	m.input.Reset()
	m.Update(key("up"))
	m.Update(key("up"))
	if got := m.input.Value(); got != "first" {
		t.Fatalf("two ups gave %q", got)
	}
	m.Update(key("down"))
	m.Update(key("down"))
	if got := m.input.Value(); got != "" {
		t.Fatalf("back down gave %q, want the empty draft", got)
	}
}

// /approvals changes the policy through the backend; unknown commands
// are named.
func TestSlashCommands(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	typeText(m, "/approvals never")
	_, cmd := m.Update(key("enter"))
	msgs, _, _ := runAll(cmd)
	for _, msg := range msgs.([]tea.Msg) {
		m.Update(msg)
	}
	if f.policy != "never" || !strings.Contains(m.View(), "approvals never") {
		t.Fatalf("policy %q; status line:\n%s", f.policy, m.View())
	}
	typeText(m, "/bogus")
	_, cmd = m.Update(key("enter"))
	_, printed, _ := runAll(cmd)
	if !strings.Contains(strings.Join(printed, "\n"), "unknown command /bogus") {
		t.Fatalf("unknown command not named: %q", printed)
	}
}

// A prompt typed while a turn runs is queued and sent when it completes.
func TestPromptQueuedDuringTurn(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	typeText(m, "first")
	_, cmd := m.Update(key("enter"))
	turn := make(chan any, 1)
	go func() { msgs, _, _ := runAll(cmd); turn <- msgs }()
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.prompts) == 1 })
	typeText(m, "second")
	_, cmd = m.Update(key("enter"))
	if _, printed, _ := runAll(cmd); !strings.Contains(strings.Join(printed, ""), "queued") {
		t.Fatalf("the prompt was not queued: %q", printed)
	}
	close(f.release)
	done := (<-turn).([]tea.Msg)
	_, cmd = m.Update(done[0])
	go func() { _, _, _ = runAll(cmd) }()
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.prompts) == 2 })
	if f.prompts[1] != "second" {
		t.Fatalf("prompts %q", f.prompts)
	}
}

// Reasoning streams into one "thinking" block that the whole summary
// then finishes.
func TestReasoningStreams(t *testing.T) {
	m := newTestModel(newFake())
	m.Update(noticesMsg{{Type: engine.NoticeReasoningDelta, Text: "Looking at "}, {Type: engine.NoticeReasoningDelta, Text: "the tests"}})
	if v := m.View(); !strings.Contains(v, "thinking: Looking at the tests") {
		t.Fatalf("no live reasoning:\n%s", v)
	}
	_, cmd := m.Update(noticesMsg{{Type: engine.NoticeReasoning, Text: "Looking at the tests first."}})
	_, printed, _ := runAll(cmd)
	if len(printed) != 1 || !strings.Contains(printed[0], "thinking: Looking at the tests first.") || len(m.blocks) != 0 {
		t.Fatalf("printed %q, live blocks %d", printed, len(m.blocks))
	}
}

// The egress proxy's answers and refusals show in the transcript, escaped;
// an allowed connection adds nothing.
func TestNetworkNoticesShowAnswersAndRefusals(t *testing.T) {
	m := newTestModel(newFake())
	_, cmd := m.Update(noticesMsg{
		{Type: engine.NoticeNetwork, CallID: "c1", NetworkConnection: &events.NetworkConnection{CallID: "c1", Host: "ok.example", Port: 443, Allowed: true, Rule: "k"}},
		{Type: engine.NoticeNetwork, CallID: "c1", NetworkDecision: &events.NetworkDecision{CallID: "c1", Host: "ask.example", Port: 80,
			Answer: events.NetworkAllowOnce, Source: events.SourceUser}},
		{Type: engine.NoticeNetwork, CallID: "c1", NetworkConnection: &events.NetworkConnection{CallID: "c1", Host: "evil\x1b[2J.example", Port: 443,
			Rule: "no rule covers the host and nobody may be asked (approval policy never)"}},
	})
	_, printed, _ := runAll(cmd)
	all := strings.Join(printed, "\n") + m.View()
	for _, want := range []string{"network: ask.example:80 for call c1: allow once (answered by you)", "network: refused evil", "approval policy never"} {
		if !strings.Contains(all, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "ok.example") {
		t.Errorf("an allowed connection was shown:\n%s", all)
	}
	if strings.Contains(all, "\x1b[2J") {
		t.Errorf("a host name reached the terminal as an escape")
	}
}
