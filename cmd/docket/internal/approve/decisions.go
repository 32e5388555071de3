package approve

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
)

// Decisions returns the review decisions --decisions accepts: all but the
// engine's own timed_out.
func Decisions() []events.ReviewDecision {
	return []events.ReviewDecision{events.Approved, events.ApprovedForSession, events.ApprovedExecpolicyAmendment, events.Denied, events.Abort}
}

// spellings returns Decisions as --decisions spells them.
func spellings() []string {
	var out []string
	for _, d := range Decisions() {
		out = append(out, d.String())
	}
	return out
}

// DecisionError is a --decisions word that is not a decision.
type DecisionError struct {
	// Index is the word's 0-based position in the list.
	Index int
	// Word is what was given.
	Word string
	// Suggestion is the nearest decision, or "".
	Suggestion string
}

func (e *DecisionError) Error() string {
	msg := fmt.Sprintf("item %d %q is not a decision (%s)", e.Index+1, e.Word, strings.Join(spellings(), ", "))
	if e.Suggestion != "" {
		msg += fmt.Sprintf("; did you mean %q?", e.Suggestion)
	}
	return msg
}

// ParseDecisions splits a comma-separated --decisions list and checks each
// word. Blank items are an error too: "approved,,denied" is a typo.
func ParseDecisions(list string) ([]events.ReviewDecision, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	words := strings.Split(list, ",")
	out := make([]events.ReviewDecision, len(words))
	for i, w := range words {
		w = strings.TrimSpace(w)
		d, ok := decision(w)
		if !ok {
			return nil, &DecisionError{Index: i, Word: w, Suggestion: policy.Nearest(w, spellings())}
		}
		out[i] = d
	}
	return out, nil
}

func decision(w string) (events.ReviewDecision, bool) {
	for _, d := range Decisions() {
		if w == d.String() {
			return d, true
		}
	}
	return "", false
}

// Flags answers requests from a --decisions list, in order, and returns
// engine.ErrNoDecision once the list is used up. It is safe for concurrent
// use: each answer is given once.
type Flags struct {
	mu   sync.Mutex
	left []Addressed
}

// NewFlags returns an approver over already parsed decisions.
func NewFlags(decisions []events.ReviewDecision) *Flags {
	f := &Flags{}
	for _, d := range decisions {
		f.left = append(f.left, Addressed{Decision: d})
	}
	return f
}

// NewAddressedFlags returns an approver over parsed answers, some of them
// addressed to a call (ParseAnswers).
func NewAddressedFlags(answers []Addressed) *Flags {
	return &Flags{left: append([]Addressed(nil), answers...)}
}

// Remaining returns how many answers are left.
func (f *Flags) Remaining() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.left)
}

// Decide gives the next answer. approved_execpolicy_amendment carries the
// request's proposed amendment.
func (f *Flags) Decide(ctx context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
	if err := ctx.Err(); err != nil {
		return engine.Answer{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	path := req.CallID
	if req.Agent != "" {
		path = req.Agent + "/" + req.CallID
	}
	d, left, ok := take(f.left, path)
	if !ok {
		return engine.Answer{}, fmt.Errorf("call %s: --decisions has no answer left: %w", path, engine.ErrNoDecision)
	}
	f.left = left
	ans := engine.Answer{Decision: d, Source: events.SourceFlag}
	if d == events.ApprovedExecpolicyAmendment {
		ans.Amendment = append([]string(nil), req.ProposedAmendment...)
	}
	return ans, nil
}

// Chain asks each approver in turn; one that has no decision
// (engine.ErrNoDecision) passes the request to the next.
type Chain []engine.Approver

// Decide returns the first answer an approver in the chain gives.
func (c Chain) Decide(ctx context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
	for _, a := range c {
		ans, err := a.Decide(ctx, req)
		if err == nil || !isNoDecision(err) {
			return ans, err
		}
	}
	return engine.Answer{}, fmt.Errorf("call %s: no approver could answer: %w", req.CallID, engine.ErrNoDecision)
}
