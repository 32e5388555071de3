package engine

import (
	"errors"
	"fmt"

	"github.com/docket-engine/docket/engine/prompt"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
)

// ErrPolicyTurnPending is returned by SetApprovalPolicy while the session
// has a parked or cut-off turn: the model's message about the new policy
// would land between that turn's calls and their outputs.
var ErrPolicyTurnPending = errors.New("the session has an unfinished turn; finish it before changing the approval policy")

// SetApprovalPolicy changes the session's approval policy for the turns
// that follow (the interactive /approvals command). The change is a
// durable policy_changed input record before it takes effect, so resume
// and verify replay apply it at the same point. The record carries the
// developer message that tells the model the new policy (and the sandbox
// it works in), which joins the conversation with it: the instructions,
// recorded at session start, go on naming the starting policy. Call it
// between turns: a call already being decided keeps the policy it was
// decided under. The sandbox stays the one in force (the start's, or a
// /permissions switch's), and the message names that one.
func (s *Session) SetApprovalPolicy(name string, source events.DecisionSource) error {
	ap, err := policy.ParseApprovalPolicy(name)
	if err != nil {
		return fmt.Errorf("engine: approval policy: %w", err)
	}
	if s.pending != nil {
		return ErrPolicyTurnPending
	}
	prev := s.decider.Approval()
	msg := ""
	if ap != prev {
		// As Codex: the model is told only of a policy that differs.
		// The sandbox in force: a /permissions switch's, not the start's.
		sp, plan := s.decider.Sandbox()
		if msg, err = prompt.PermissionsUpdate(prompt.Input{Cwd: s.cfg.Cwd, ApprovalPolicy: ap.String(),
			SandboxMode: sp.Mode.String(), WritableRoots: plan.WritableRoots,
			NetworkAccess: sp.NetworkAccess, EgressProxy: plan.Egress}, prev.String()); err != nil {
			return fmt.Errorf("engine: approval policy: the model's message: %w", err)
		}
	}
	return s.applyPolicyChange(ap, events.PolicyChanged{ApprovalPolicy: ap.String(), Previous: prev.String(), Source: source, Message: msg})
}

// ReplayPolicyChange applies a recorded policy_changed record (verify and
// live replay): the policy it names, and the model's message exactly as
// recorded, so the requests that follow are the recorded ones whatever
// this version of Docket would word it; a record without a message (a
// journal from before it was sent) sends none.
func (s *Session) ReplayPolicyChange(rec events.PolicyChanged) error {
	ap, err := policy.ParseApprovalPolicy(rec.ApprovalPolicy)
	if err != nil {
		return fmt.Errorf("engine: approval policy: %w", err)
	}
	return s.applyPolicyChange(ap, events.PolicyChanged{ApprovalPolicy: ap.String(), Previous: s.decider.Approval().String(),
		Source: rec.Source, Message: rec.Message, Permissions: rec.Permissions})
}

// applyPolicyChange journals the change durably, then applies it: the
// approval policy, and the sandbox of a permission profile switch (a
// recorded one: its proxy is the one its record stands for).
func (s *Session) applyPolicyChange(ap policy.ApprovalPolicy, rec events.PolicyChanged) error {
	// A switch is checked before it is journaled: a record that
	// resume could not put back is never written.
	sw, err := s.sandboxChange(rec.Permissions, nil)
	if err != nil {
		return err
	}
	return s.commitPolicyChange(ap, rec, sw)
}

// commitPolicyChange is applyPolicyChange with the switch already checked
// (sw, nil for none).
func (s *Session) commitPolicyChange(ap policy.ApprovalPolicy, rec events.PolicyChanged, sw *sandboxSwitch) error {
	if _, err := s.rec.appendDurable("", rec); err != nil {
		return err
	}
	s.decider.setApproval(ap)
	s.putSandbox(sw)
	s.mu.Lock()
	s.addPermissionsLocked(rec.Message)
	s.mu.Unlock()
	return nil
}

// addPermissionsLocked adds a policy change's message to the conversation
// and keeps it, so that a compaction, which replaces the conversation,
// does not take it away (replaceLocked adds it back).
func (s *Session) addPermissionsLocked(msg string) {
	if msg == "" {
		return
	}
	it := PermissionsItem(msg)
	s.permissions = &it
	s.addItemsLocked(it)
}

// PermissionsItem is the developer message of a policy change.
func PermissionsItem(msg string) events.Item {
	return events.Item{Type: events.ItemMessage, Role: "developer", Text: msg}
}

// ApprovalPolicy returns the approval policy in force now.
func (s *Session) ApprovalPolicy() string { return s.decider.Approval().String() }
