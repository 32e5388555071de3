package policy

// SelectInput is what the sandbox choice for a Skip or an approved call
// depends on.
type SelectInput struct {
	Mode        SandboxMode
	Requirement Requirement
	// EscalationRequested is true when the shell call asked for
	// require_escalated.
	EscalationRequested bool
	// ApprovedBy is the cause of the approval that let the call run (e.g.
	// user_approved, user_approved_for_session, session_grant), or "" when
	// the call was not approved by anyone.
	ApprovedBy Cause
}

// Selection is the sandbox choice and its audit cause.
type Selection struct {
	Sandboxed bool
	Cause     Cause
}

// SelectSandbox applies "Sandbox selection for a Skip or an approval": no
// sandbox under danger-full-access or external-sandbox, when an allow rule
// bypasses it, or when an approval (the user's, or a grant the user gave)
// answered an escalation request; otherwise the platform sandbox. The
// model's request alone never removes the sandbox.
func SelectSandbox(in SelectInput) Selection {
	_, mode := normalize(Untrusted, in.Mode)
	switch {
	case mode == DangerFullAccess:
		return Selection{Cause: CauseDangerFullAccess}
	case mode == ExternalSandbox:
		return Selection{Cause: CauseExternalSandbox}
	case in.Requirement.Kind == Skip && in.Requirement.BypassSandbox:
		return Selection{Cause: CauseRuleAllow}
	case in.EscalationRequested && in.ApprovedBy != "":
		return Selection{Cause: in.ApprovedBy}
	}
	cause := in.ApprovedBy
	if cause == "" {
		cause = in.Requirement.Cause
	}
	return Selection{Sandboxed: true, Cause: cause}
}
