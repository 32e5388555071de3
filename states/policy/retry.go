package policy

// Tool kinds the retry and selection rules distinguish.
const (
	ToolShell      = "shell"
	ToolApplyPatch = "apply_patch"
	ToolMCP        = "mcp"
)

// RetryInput describes a call the sandbox just denied.
type RetryInput struct {
	Approval ApprovalPolicy
	// Tool is ToolShell, ToolApplyPatch or another tool's kind.
	Tool string
	// EscalationAllowed is false for tools that must never run unsandboxed.
	EscalationAllowed bool
	// AlreadyApproved is true when the user approved this call in the first
	// phase.
	AlreadyApproved bool
}

// RetryRule says what happens after a sandbox denial.
type RetryRule struct {
	// Allowed: the call may run again without the sandbox.
	Allowed bool
	// Ask: the user must approve the retry first (only when Allowed).
	Ask bool
	// Reason is the approval prompt's reason when Ask.
	Reason string
	// Cause is retry_not_allowed, already_approved or sandbox_denial (ask).
	Cause Cause
}

// RetryReason is the prompt shown before running a denied call unsandboxed.
const RetryReason = "command failed; retry without sandbox?"

// RetryAllowed reports whether, under this policy, a tool of this kind that
// allows escalation may run again without the sandbox after a denial (the
// first half of Retry).
func RetryAllowed(ap ApprovalPolicy, tool string) bool {
	return Retry(RetryInput{Approval: ap, Tool: tool, EscalationAllowed: true, AlreadyApproved: true}).Allowed
}

// Retry applies DESIGN.md's retry rule: a retry without the sandbox
// needs a tool that allows escalation and the policy on-failure or untrusted
// (apply_patch also on-request); it runs without asking if the user already
// approved the call, otherwise it asks. Under never and on-request the
// failure goes back to the model.
func Retry(in RetryInput) RetryRule {
	approval, _ := normalize(in.Approval, ReadOnly)
	ok := in.EscalationAllowed && (approval == OnFailure || approval == Untrusted ||
		(approval == OnRequest && in.Tool == ToolApplyPatch))
	switch {
	case !ok:
		return RetryRule{Cause: CauseRetryNotAllowed}
	case in.AlreadyApproved:
		return RetryRule{Allowed: true, Cause: CauseAlreadyApproved}
	}
	return RetryRule{Allowed: true, Ask: true, Reason: RetryReason, Cause: CauseSandboxDenial}
}
