package replay_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/prompt"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/replay"
)

// policySession starts an untrusted, workspace-write session on a MemLog
// with the scripted model, its instructions stating the starting policy.
func policySession(t *testing.T, log *enginetest.MemLog, lines ...string) (*engine.Session, *capture) {
	t.Helper()
	m, err := script.Parse("script", []byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	mdl := &capture{Model: m}
	ws := t.TempDir()
	in := prompt.Input{Cwd: ws, ApprovalPolicy: "untrusted", SandboxMode: "workspace-write", WritableRoots: []string{ws}}
	instr, err := prompt.Policy(in)
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.Start(engine.Config{SessionID: "s-policy", Cwd: ws, Home: t.TempDir(), Instructions: instr,
		Session: events.SessionConfig{ApprovalPolicy: "untrusted", SandboxMode: "workspace-write", Model: "gpt-5-codex"},
		Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, WritableRoots: []string{ws}}, Rules: []events.RuleSource{},
		Model: mdl, Approver: flags(), Runner: &enginetest.FakeRunner{},
		Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}}, log)
	if err != nil {
		t.Fatal(err)
	}
	return s, mdl
}

// developerTexts are a request's developer messages.
func developerTexts(items []events.Item) []string {
	var out []string
	for _, it := range items {
		if it.Type == events.ItemMessage && it.Role == "developer" {
			out = append(out, it.Text)
		}
	}
	return out
}

// TestPolicyChangeTellsTheModelAndReplays: after /approvals, every request
// carries one developer message naming the policy in force (the
// instructions, recorded at the start, still name the first one); a
// compaction keeps the message; a restored session sends the same
// conversation; and the journal verify-replays with the same digests.
func TestPolicyChangeTellsTheModelAndReplays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	log := &enginetest.MemLog{}
	third := `{"output":[{"type":"message","content":"third answer"}]}`
	fourth := `{"output":[{"type":"message","content":"fourth answer"}]}`
	s, mdl := policySession(t, log, msg1, msg2, summaryLine, third, fourth)
	mustTurn(t, s, "one")
	// The second time, the policy does not change: journaled, and the
	// model is not told again.
	for range 2 {
		if err := s.SetApprovalPolicy("never", events.SourceUser); err != nil {
			t.Fatal(err)
		}
	}
	mustTurn(t, s, "two")
	if _, err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	mustTurn(t, s, "three")

	if got := developerTexts(mdl.reqs[0].Items); len(got) != 0 {
		t.Fatalf("the request before the change carried %q", got)
	}
	for i, req := range mdl.reqs[1:] {
		dev := developerTexts(req.Items)
		if len(dev) != 1 || !strings.Contains(dev[0], "Approval policy: never.") || !strings.Contains(dev[0], "changed from untrusted to never") ||
			!strings.HasPrefix(dev[0], prompt.PermissionsOpen) {
			t.Fatalf("request %d after the change: developer messages %q; want one naming never", i+2, dev)
		}
		if !strings.Contains(req.Instructions, "Approval policy: untrusted.") {
			t.Fatalf("request %d: the instructions were rewritten:\n%s", i+2, req.Instructions)
		}
	}
	last := mdl.reqs[len(mdl.reqs)-1].Items
	if len(last) != 3 || last[0].Role != "developer" || last[1].Text != engine.SummaryPrefix+"The user asked twice; both answered." || last[2].Text != "three" {
		t.Fatalf("after the compaction the request is %+v; want the policy message, the summary, the prompt", last)
	}

	recs := log.Records()
	var changes []events.PolicyChanged
	for _, r := range recs {
		if r.Kind == events.KindPolicyChanged {
			b, _ := r.Decode()
			changes = append(changes, *b.(*events.PolicyChanged))
		}
	}
	if len(changes) != 2 || changes[0].Message != developerTexts(mdl.reqs[1].Items)[0] || changes[1].Message != "" {
		t.Fatalf("journaled changes %+v; want the first carrying the message the model was sent, the second none", changes)
	}

	res, err := replay.Verify(ctx, recs, replay.Options{})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if res.Compared == 0 {
		t.Fatal("verify compared nothing")
	}

	// Resumed, the session sends what the live one would have.
	m, err := script.Parse("script", []byte(fourth))
	if err != nil {
		t.Fatal(err)
	}
	rmdl := &capture{Model: m}
	restored, err := engine.Restore(engine.Config{Model: rmdl, Approver: flags(), Runner: &enginetest.FakeRunner{},
		Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}}, &enginetest.MemLog{}, recs)
	if err != nil {
		t.Fatal(err)
	}
	mustTurn(t, restored, "four")
	got := rmdl.reqs[0].Items
	want := append(append([]events.Item{}, last...), events.Item{Type: events.ItemMessage, Role: "assistant", Text: "third answer"})
	if len(got) != len(want)+1 {
		t.Fatalf("the resumed request has %d items, want %d: %+v", len(got), len(want)+1, got)
	}
	for i := range want {
		if got[i].Role != want[i].Role || got[i].Text != want[i].Text {
			t.Fatalf("resumed item %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestPolicyChangeWithoutMessageReplaysWithoutOne: a journal written
// before the message existed (policy_changed without one) replays and
// resumes sending none, so its recorded digests still match.
func TestPolicyChangeWithoutMessageReplaysWithoutOne(t *testing.T) {
	t.Parallel()
	log := &enginetest.MemLog{}
	s, mdl := policySession(t, log, msg1, msg2)
	mustTurn(t, s, "one")
	if err := s.ReplayPolicyChange(events.PolicyChanged{ApprovalPolicy: "never", Source: events.SourceUser}); err != nil {
		t.Fatal(err)
	}
	if s.ApprovalPolicy() != "never" {
		t.Fatalf("policy %q after the change", s.ApprovalPolicy())
	}
	mustTurn(t, s, "two")
	if dev := developerTexts(mdl.reqs[1].Items); len(dev) != 0 {
		t.Fatalf("a change without a message sent %q", dev)
	}
	if _, err := replay.Verify(context.Background(), log.Records(), replay.Options{}); err != nil {
		t.Fatalf("verify: %v", err)
	}
}

// TestPolicyChangeIsRefusedWithAnUnfinishedTurn: the message would land
// between a parked turn's calls and their outputs.
func TestPolicyChangeIsRefusedWithAnUnfinishedTurn(t *testing.T) {
	t.Parallel()
	log := &enginetest.MemLog{}
	call := `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["touch","x"]}}]}`
	s, _ := policySession(t, log, call)
	// No answer for the approval: the turn parks.
	res, err := s.Turn(context.Background(), "make x")
	if err != nil || res.Status != events.TurnParked {
		t.Fatalf("turn: %+v, %v; want parked", res, err)
	}
	restored, err := engine.Restore(engine.Config{Model: &capture{}, Approver: flags(), Runner: &enginetest.FakeRunner{},
		Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}}, &enginetest.MemLog{}, log.Records())
	if err != nil {
		t.Fatal(err)
	}
	if err := restored.SetApprovalPolicy("never", events.SourceUser); !errors.Is(err, engine.ErrPolicyTurnPending) {
		t.Fatalf("SetApprovalPolicy with a parked turn = %v; want ErrPolicyTurnPending", err)
	}
	if restored.ApprovalPolicy() != "untrusted" {
		t.Fatalf("the refused change took effect: %q", restored.ApprovalPolicy())
	}
}
