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
const Wait = "<wait>"

// ScriptedApprover answers approval requests from a list, in order, and
// remembers what it was asked. When the list runs out it returns
// engine.ErrNoDecision, which parks the session, as --decisions does. It is
// safe for concurrent use.
type ScriptedApprover struct {
	// Answers are review decisions ("approved", "denied", ...) or Wait.
	Answers []string
	// Source is the answers' events.Source*; empty means events.SourceUser.
	Source string

	mu    sync.Mutex
	asked []engine.ApprovalRequest
}

// Decide records req and gives the next answer.
func (a *ScriptedApprover) Decide(ctx context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
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
		src = events.SourceUser.String()
	}
	return engine.Answer{Decision: events.ReviewDecision(d), Source: events.DecisionSource(src)}, nil
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
