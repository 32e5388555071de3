package engine

import (
	"strings"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

// maxFeedbackBytes bounds what a person's denial note may add to the
// conversation and the journal.
const maxFeedbackBytes = 4096

// userFeedback is the feedback of an answer that may carry one: a denial
// given by a person. Anything else carries none.
func userFeedback(a Answer) string {
	if a.Decision != events.Denied {
		return ""
	}
	f := strings.TrimSpace(a.Feedback)
	if len(f) > maxFeedbackBytes {
		f = strings.ToValidUTF8(f[:maxFeedbackBytes], "")
	}
	return f
}

// feedbackNote is the sentence the model gets with a denial's feedback.
func feedbackNote(feedback string) string {
	if feedback == "" {
		return ""
	}
	return "\nThe user's feedback: " + feedback
}

// approvalRequest is what the approver is shown: the journaled request
// plus what a "yes" would mean, so a prompt can say it plainly.
func (t *turn) approvalRequest(cr *callRun, req events.ApprovalRequested) ApprovalRequest {
	s, p := t.s, cr.prep
	ar := ApprovalRequest{ApprovalRequested: req, Parsed: s.decider.Parsed(p.Command)}
	if req.Phase == events.PhaseRetry {
		ar.Unsandboxed = true
	} else {
		plan, _ := s.decider.SandboxFor(p, states.CauseUserApproved)
		ar.Unsandboxed = plan.Mode == events.SandboxNone && !p.OutOfProcess
		if !ar.Unsandboxed && !p.OutOfProcess {
			ar.RetryUnsandboxed, _ = s.decider.RetryAllowed(p)
		}
		ar.ModelJustification = p.Requirement.Cause == states.CauseEscalationRequested && p.Justification != "" && req.Reason == p.Justification
	}
	if p.ApprovalKind == events.ApprovalPatch {
		ar.Patch = p.Start.Input
	}
	return ar
}
