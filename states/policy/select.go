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
	// OutOfProcess is true for a tool that runs outside Docket's sandbox by
	// nature (an MCP server's tool): there is no sandbox to select.
	OutOfProcess bool
}

// Selection is the sandbox choice and its audit cause.
type Selection struct {
	Sandboxed bool
	Cause     Cause
}

// SelectSandbox applies "Sandbox selection for a Skip or an approval": no
// sandbox for an out-of-process tool, under danger-full-access or
// external-sandbox, when an allow rule bypasses it, or when an approval (the
// user's, or a grant the user gave) answered an escalation request;
// otherwise the platform sandbox. The model's request alone never removes
// the sandbox. The cause of a sandboxed run is the approval's, else the
// requirement's, else policy_skip.
func SelectSandbox(in SelectInput) Selection {
	_, mode := normalize(Untrusted, in.Mode)
	switch {
	case in.OutOfProcess:
		return Selection{Cause: CauseOutOfProcess}
	case mode == DangerFullAccess:
		return Selection{Cause: CauseDangerFullAccess}
	case mode == ExternalSandbox:
		return Selection{Cause: CauseExternalSandbox}
	case in.Requirement.Kind == Skip && in.Requirement.BypassSandbox():
		return Selection{Cause: CauseRuleAllow}
	case in.EscalationRequested && in.ApprovedBy != "":
		return Selection{Cause: in.ApprovedBy}
	}
	cause := in.ApprovedBy
	if cause == "" {
		cause = in.Requirement.Cause
	}
	if cause == "" {
		cause = CausePolicySkip
	}
	return Selection{Sandboxed: true, Cause: cause}
}
