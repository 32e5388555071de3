package policy

// DefaultRequirement is the fallback table for tools without a requirement
// of their own (DESIGN.md section 3).
func DefaultRequirement(p ApprovalPolicy, m SandboxMode) Requirement {
	switch {
	case p == Untrusted:
		return Requirement{Kind: NeedsApproval, Cause: CauseUntrustedPolicy, Reason: "approval policy is untrusted"}
	case p == OnRequest && m.Restricting():
		return Requirement{Kind: NeedsApproval, Cause: CauseOnRequestPolicy, Reason: "approval policy is on-request and the sandbox restricts this tool"}
	}
	return Requirement{Kind: Skip, Cause: CausePolicySkip}
}
