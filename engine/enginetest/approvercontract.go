package enginetest

import (
	"context"
	"errors"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// NewApprover makes an approver that has answers to give, in order, and
// then none (as --decisions does).
type NewApprover func(t *testing.T, answers ...events.ReviewDecision) engine.Approver

// CheckApprover runs the part of the engine.Approver contract that holds
// for every non-interactive implementation: answers come in order with a
// source, an approver with nothing to give parks (ErrNoDecision), and a
// done context is an error, never an answer.
func CheckApprover(t *testing.T, newApprover NewApprover) {
	req := engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{CallID: "c1", RequestID: "c1/initial",
		Phase: events.PhaseInitial, Command: []string{"touch", "x"}}}

	t.Run("answers in order, each with a source, then parks", func(t *testing.T) {
		a := newApprover(t, events.Approved, events.Denied)
		for _, want := range []events.ReviewDecision{events.Approved, events.Denied} {
			ans, err := a.Decide(context.Background(), req)
			if err != nil || ans.Decision != want || ans.Source == "" {
				t.Fatalf("Decide = %+v, %v; want %s with a source", ans, err, want)
			}
		}
		if ans, err := a.Decide(context.Background(), req); !errors.Is(err, engine.ErrNoDecision) {
			t.Fatalf("with no answer left Decide = %+v, %v; want ErrNoDecision (park)", ans, err)
		}
	})

	t.Run("a done context is an error, never an answer", func(t *testing.T) {
		a := newApprover(t, events.Denied)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		ans, err := a.Decide(ctx, req)
		if !errors.Is(err, context.Canceled) || ans.Decision != "" {
			t.Fatalf("Decide on a cancelled context = %+v, %v; want context.Canceled and no decision", ans, err)
		}
	})
}
