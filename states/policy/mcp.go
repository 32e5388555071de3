package policy

// MCPRequirement decides an MCP tool call. needsApproval and reason come
// from the server's approval setting and the tool's hints: a tool that needs
// approval asks (Forbidden under never); one that does not runs without
// asking, out of process.
func MCPRequirement(ap ApprovalPolicy, needsApproval bool, reason string) Requirement {
	approval, _ := normalize(ap, ReadOnly)
	switch {
	case !needsApproval:
		return Requirement{Kind: Skip, Cause: CauseOutOfProcess, Reason: "MCP tool runs out of process; " + reason}
	case approval == Never:
		return Requirement{Kind: Forbidden, Cause: CausePolicyForbidden, Reason: reason + " (approval policy never)"}
	}
	return Requirement{Kind: NeedsApproval, Cause: CauseNeedsApproval, Reason: reason}
}
