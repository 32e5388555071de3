package engine

import (
	"time"

	"github.com/docket-engine/docket/events"
)

// pointDecisionAppended is the fault point right after an answer is
// journaled (buffered) and before anything acts on it. A commit another
// call makes meanwhile can carry the answer to disk; a crash then leaves
// an answered request whose call still waits for a decision.
const pointDecisionAppended = "after:decision"

// savedAnswer is an answer a resumed session found in the journal for the
// request its call still waits on, with what of its effects is journaled.
type savedAnswer struct {
	d       events.Decision
	granted bool
	amended bool
}

// applySaved acts on a journaled answer instead of asking again: the
// request and the answer are in the journal already, so neither is written
// again; the grant or rule the answer brings is journaled if the crash
// came before it was.
func (t *turn) applySaved(cr *callRun, req events.ApprovalRequested, sv *savedAnswer) (Answer, error) {
	ans := Answer{Decision: sv.d.Decision, Source: sv.d.Source, Amendment: sv.d.Amendment, Feedback: sv.d.Feedback, At: time.Unix(0, sv.d.At)}
	return t.answerEffects(cr, req, ans, sv.granted, sv.amended)
}
