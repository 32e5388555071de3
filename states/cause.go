package states

// Cause is the short stable code that says why a transition happened; it is
// the audit's answer to "why".
type Cause string

// Causes, as DESIGN.md section 2 lists them, plus the few the engine needs
// for invalid calls and completed runs.
const (
	CausePolicySkip             Cause = "policy_skip"
	CauseRuleAllow              Cause = "rule_allow"
	CauseRulePrompt             Cause = "rule_prompt"
	CauseRuleForbidden          Cause = "rule_forbidden"
	CauseKnownSafe              Cause = "known_safe"
	CauseSessionGrant           Cause = "session_grant"
	CauseUserApproved           Cause = "user_approved"
	CauseUserApprovedForSession Cause = "user_approved_for_session"
	CauseUserAmendment          Cause = "user_amendment"
	CauseUserDenied             Cause = "user_denied"
	CauseUserAbort              Cause = "user_abort"
	CauseApprovalTimeout        Cause = "approval_timeout"
	CauseEscalationRequested    Cause = "escalation_requested"
	CauseDangerFullAccess       Cause = "danger_full_access"
	CauseExternalSandbox        Cause = "external_sandbox"
	CauseNoSandboxNeeded        Cause = "no_sandbox_needed"
	CauseSandboxUnavailable     Cause = "sandbox_unavailable"
	CauseSandboxDenial          Cause = "sandbox_denial"
	CauseRetryNotAllowed        Cause = "retry_not_allowed"
	CauseAlreadyApproved        Cause = "already_approved"
	CauseOutOfProcess           Cause = "out_of_process"
	CauseCrashRecovery          Cause = "crash_recovery"
	CauseNeedsApproval          Cause = "needs_approval"
	CauseDangerous              Cause = "dangerous_command"
	CauseUntrustedPolicy        Cause = "untrusted_policy"
	CauseOnRequestPolicy        Cause = "on_request_policy"
	CauseOutsideWritableRoots   Cause = "outside_writable_roots"
	CausePolicyForbidden        Cause = "policy_forbidden"
	CauseNoApprover             Cause = "no_approver"
	CauseInvalidCall            Cause = "invalid_call"
	CauseCompleted              Cause = "completed"
	// CauseCancelled: the operator stopped the turn (Ctrl-C, SIGTERM, a
	// caller's cancel), not the user's "abort" answer (CauseUserAbort).
	CauseCancelled Cause = "cancelled"
	// CauseDeadline: a deadline set on the turn or session passed.
	CauseDeadline Cause = "deadline"
	// CauseHookDenied: a pre_tool hook denied the call (exit 2, or its JSON
	// said "deny").
	CauseHookDenied Cause = "hook_denied"
	// CauseHookFailed: a pre_tool hook failed (crashed, hung past its
	// timeout, printed no answer) and its on_error is "deny".
	CauseHookFailed Cause = "hook_failed"
	// CauseHookAsk: a pre_tool hook asked for an approval the policy would
	// have skipped.
	CauseHookAsk Cause = "hook_ask"
)

// UserDecided reports whether c records a choice the user made (rather than a
// rule, a policy or the engine). The audit and replay's invariant 3 rest on it.
func (c Cause) UserDecided() bool {
	switch c {
	case CauseUserApproved, CauseUserApprovedForSession, CauseUserAmendment, CauseSessionGrant, CauseAlreadyApproved:
		return true
	}
	return false
}

// JustifiesUnsandboxed reports whether c is a sufficient reason for a call to
// reach unsandboxed (invariant 3). The model's own escalation request is not.
func (c Cause) JustifiesUnsandboxed() bool {
	switch c {
	case CauseUserApproved, CauseUserApprovedForSession, CauseUserAmendment, CauseSessionGrant,
		CauseAlreadyApproved, CauseRuleAllow, CauseDangerFullAccess, CauseExternalSandbox, CauseOutOfProcess:
		return true
	}
	return false
}
