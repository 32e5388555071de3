package enginetest

import (
	"context"
	"sync"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// Wait is an answer that makes ScriptedApprover wait until its context is
// done and return the context's error, as a user who never answers: the
// engine then records an approval time-out or an abort, never a denial.
const Wait events.ReviewDecision = "<wait>"

// ScriptedApprover answers approval requests from a list, in order, and
// remembers what it was asked. When the list runs out it returns
// engine.ErrNoDecision, which parks the session, as --decisions does. It is
// safe for concurrent use.
type ScriptedApprover struct {
	// Answers are review decisions (events.Approved, events.Denied, ...) or
	// Wait.
	Answers []events.ReviewDecision
	// Source says who gave the answers; empty means events.SourceUser.
	Source events.DecisionSource

	mu    sync.Mutex
	asked []engine.ApprovalRequest
}

// Decide records req and gives the next answer; with ctx already done it
// gives ctx's error instead, as the contract requires.
func (a *ScriptedApprover) Decide(ctx context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
	if err := ctx.Err(); err != nil {
		return engine.Answer{}, err
	}
	a.mu.Lock()
	a.asked = append(a.asked, req)
	if len(a.Answers) == 0 {
		a.mu.Unlock()
		return engine.Answer{}, engine.ErrNoDecision
	}
	d := a.Answers[0]
	a.Answers = a.Answers[1:]
	src := a.Source
	a.mu.Unlock()
	if d == Wait {
		<-ctx.Done()
		return engine.Answer{}, ctx.Err()
	}
	if src == "" {
		src = events.SourceUser
	}
	return engine.Answer{Decision: d, Source: src}, nil
}

// Asked returns the requests asked so far, in order.
func (a *ScriptedApprover) Asked() []engine.ApprovalRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]engine.ApprovalRequest(nil), a.asked...)
}

// Remaining returns how many answers are left.
func (a *ScriptedApprover) Remaining() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.Answers)
}
