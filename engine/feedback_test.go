package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// answering answers every request with one answer and keeps the requests.
type answering struct {
	mu    sync.Mutex
	ans   engine.Answer
	asked []engine.ApprovalRequest
}

func (a *answering) Decide(_ context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req)
	return a.ans, nil
}

func TestADenialsFeedbackReachesTheModelAndTheJournal(t *testing.T) {
	t.Parallel()
	appr := &answering{ans: engine.Answer{Decision: events.Denied, Source: events.SourceUser, Feedback: "use make test instead"}}
	f := newFixture(t, setup{approval: "untrusted", mode: "workspace-write", approver: appr,
		script: shellLine("c1", "go test ./...") + "\n" + done})
	if res := f.turn("test"); res.Status != events.TurnCompleted {
		t.Fatalf("turn: %+v", res)
	}
	var told string
	for _, it := range f.s.Items() {
		if it.Type == events.ItemFunctionCallOutput {
			told = it.Output
		}
	}
	if !strings.Contains(told, "the user denied it") || !strings.Contains(told, "The user's feedback: use make test instead") {
		t.Fatalf("the model was told %q", told)
	}
	recs, err := f.j.Call("c1")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range recs {
		if r.Kind == events.KindDecision {
			b, _ := r.Decode()
			found = b.(*events.Decision).Feedback == "use make test instead"
		}
	}
	if !found {
		t.Fatal("the decision record does not hold the feedback")
	}
}

// TestTheApproverIsToldWhatAYesMeans: the flags a prompt relies on to say
// "without the sandbox" follow the policy.
func TestTheApproverIsToldWhatAYesMeans(t *testing.T) {
	t.Parallel()
	escalate := `,"sandbox_permissions":"require_escalated","justification":"I must write outside"`
	for _, tc := range []struct {
		name, approval, args                string
		unsandboxed, retryLater, modelWords bool
	}{
		{"escalation request", "on-request", escalate, true, false, true},
		{"untrusted, sandboxed, retry allowed later", "untrusted", "", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			appr := &answering{ans: engine.Answer{Decision: events.Denied, Source: events.SourceUser}}
			f := newFixture(t, setup{approval: tc.approval, mode: "workspace-write", approver: appr,
				script: `{"output":[` + shellCall("c1", "touch x", tc.args) + `]}` + "\n" + done})
			f.turn("go")
			if len(appr.asked) != 1 {
				t.Fatalf("asked %d times", len(appr.asked))
			}
			q := appr.asked[0]
			if q.Unsandboxed != tc.unsandboxed || q.RetryUnsandboxed != tc.retryLater || q.ModelJustification != tc.modelWords {
				t.Fatalf("request says unsandboxed=%v retry=%v model's words=%v, want %v %v %v",
					q.Unsandboxed, q.RetryUnsandboxed, q.ModelJustification, tc.unsandboxed, tc.retryLater, tc.modelWords)
			}
		})
	}
}
