package engine

import (
	"fmt"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
)

// SetApprovalPolicy changes the session's approval policy for the turns
// that follow (the interactive /approvals command). The change is a
// durable policy_changed input record before it takes effect, so resume
// and verify replay apply it at the same point. Call it between turns:
// a call already being decided keeps the policy it was decided under.
// The sandbox mode does not change: it is the session's write-ahead
// plan, and a looser one would need a new session.
func (s *Session) SetApprovalPolicy(name string, source events.DecisionSource) error {
	ap, err := policy.ParseApprovalPolicy(name)
	if err != nil {
		return fmt.Errorf("engine: approval policy: %w", err)
	}
	prev := s.decider.Approval()
	if _, err := s.rec.appendDurable("", events.PolicyChanged{ApprovalPolicy: ap.String(), Previous: prev.String(), Source: source}); err != nil {
		return err
	}
	s.decider.setApproval(ap)
	return nil
}

// ApprovalPolicy returns the approval policy in force now.
func (s *Session) ApprovalPolicy() string { return s.decider.Approval().String() }
