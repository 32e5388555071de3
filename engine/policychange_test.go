package engine_test

import (
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
)

// A policy changed between turns governs the next turn's decisions, is
// journaled as an input, and a restored session (resume) is under it.
func TestSetApprovalPolicyGovernsLaterTurnsAndSurvivesRestore(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "untrusted", mode: "workspace-write", answers: []events.ReviewDecision{events.Approved},
		script: `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["touch","a"]}}]}
{"output":[{"type":"message","content":"one"}]}
{"output":[{"type":"function_call","call_id":"c2","name":"shell","arguments":{"command":["touch","b"]}}]}
{"output":[{"type":"message","content":"two"}]}
`})
	f.turn("first")
	if n := len(f.asked()); n != 1 {
		t.Fatalf("under untrusted, touch was asked %d times, want 1", n)
	}
	if err := f.s.SetApprovalPolicy("bogus", events.SourceUser); err == nil {
		t.Fatal("an unknown policy was accepted")
	}
	if err := f.s.SetApprovalPolicy("never", events.SourceUser); err != nil {
		t.Fatal(err)
	}
	if got := f.s.ApprovalPolicy(); got != "never" {
		t.Fatalf("ApprovalPolicy() = %q after the change", got)
	}
	f.turn("second")
	if n := len(f.asked()); n != 1 {
		t.Fatalf("under never, the second call was asked (%d requests in all)", n)
	}
	if !exists(f.ws + "/b") {
		t.Fatal("the second call did not run under the new policy")
	}
	if err := f.j.Commit(); err != nil {
		t.Fatal(err)
	}
	recs, err := f.j.All()
	if err != nil {
		t.Fatal(err)
	}
	var changes []events.PolicyChanged
	for _, r := range recs {
		if r.Kind == events.KindPolicyChanged {
			b, _ := r.Decode()
			changes = append(changes, *b.(*events.PolicyChanged))
		}
	}
	if len(changes) != 1 || changes[0].ApprovalPolicy != "never" || changes[0].Previous != "untrusted" || changes[0].Source != events.SourceUser {
		t.Fatalf("journaled policy changes = %+v", changes)
	}
	mdl, err := script.Parse("none", []byte(`{"output":[{"type":"message","content":"x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	restored, err := engine.Restore(engine.Config{SessionID: "r", Model: mdl, Approver: &enginetest.ScriptedApprover{},
		Runner: &enginetest.FakeRunner{}, Tools: []engine.Tool{engine.ShellTool{}}}, &enginetest.MemLog{}, recs)
	if err != nil {
		t.Fatal(err)
	}
	if got := restored.ApprovalPolicy(); got != "never" {
		t.Fatalf("restored session's policy = %q, want never", got)
	}
}
