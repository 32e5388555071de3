package events

// The journal's enumerations. Each is a typed string defined once, here,
// with the spelling the journal stores; msgpack encodes a typed string as a
// plain string, so journals written before these types read the same. The
// CLI, config and JSON edges parse into them (states/policy has the
// parsers, with spelling suggestions); everything inside compares typed
// values, never literals.

// ReviewDecision is an answer to an approval request, as Codex spells it,
// plus the engine's own TimedOut.
type ReviewDecision string

// The review decisions; TimedOut is the engine's own, never a user's.
const (
	Approved                    ReviewDecision = "approved"
	ApprovedForSession          ReviewDecision = "approved_for_session"
	ApprovedExecpolicyAmendment ReviewDecision = "approved_execpolicy_amendment"
	Denied                      ReviewDecision = "denied"
	Abort                       ReviewDecision = "abort"
	TimedOut                    ReviewDecision = "timed_out"
)

// String returns the decision's spelling.
func (d ReviewDecision) String() string { return string(d) }

// IsApproval reports whether the decision lets the call run.
func (d ReviewDecision) IsApproval() bool {
	return d == Approved || d == ApprovedForSession || d == ApprovedExecpolicyAmendment
}

// Phase is which approval of a call a request or decision is about.
type Phase string

// Approval phases: before the first run, and before running again without
// the sandbox after a denial.
const (
	PhaseInitial Phase = "initial"
	PhaseRetry   Phase = "retry"
)

// String returns the phase's spelling.
func (p Phase) String() string { return string(p) }

// DecisionSource says who or what gave a decision.
type DecisionSource string

// Decision sources. SourceUser and SourceTerminal are a person;
// SourceMCPElicitation is an MCP client's answer to an elicitation (its
// user's, as far as the client says: the session's mcp_client setting names
// the client).
const (
	SourceUser      DecisionSource = "user"
	SourceFlag      DecisionSource = "decisions_flag"
	SourceTimeout   DecisionSource = "timeout"
	SourceEngine    DecisionSource = "engine"
	SourceApprover  DecisionSource = "approver"
	SourceNoAnswer  DecisionSource = "no_approver"
	SourceTerminal  DecisionSource = "terminal"
	SourceCancelled DecisionSource = "cancelled"
	// SourceMCPElicitation: docket mcp-server asked the MCP client through
	// elicitation and the client answered.
	SourceMCPElicitation DecisionSource = "mcp_elicitation"
)

// String returns the source's spelling.
func (s DecisionSource) String() string { return string(s) }

// ApprovalKind is what an approval request is about.
type ApprovalKind string

// Approval request kinds.
const (
	ApprovalExec  ApprovalKind = "exec"
	ApprovalPatch ApprovalKind = "patch"
	ApprovalMCP   ApprovalKind = "mcp"
	// ApprovalNetwork is a host a running command asked the egress proxy
	// for: put to the approver, answered in a network_decision record.
	ApprovalNetwork ApprovalKind = "network"
)

// String returns the kind's spelling.
func (k ApprovalKind) String() string { return string(k) }

// TurnStatus is how a turn ended.
type TurnStatus string

// Turn statuses.
const (
	TurnCompleted TurnStatus = "completed"
	TurnFailed    TurnStatus = "failed"
	TurnAborted   TurnStatus = "aborted"
	TurnParked    TurnStatus = "parked"
)

// String returns the status's spelling.
func (s TurnStatus) String() string { return string(s) }

// SandboxMode is what a sandbox plan enforces (SandboxPlan.Mode). It is
// not the configured sandbox mode (states/policy.SandboxMode): a
// danger-full-access or external-sandbox session runs under SandboxNone.
type SandboxMode string

// Sandbox plan modes.
const (
	SandboxNone           SandboxMode = "none"
	SandboxReadOnly       SandboxMode = "read-only"
	SandboxWorkspaceWrite SandboxMode = "workspace-write"
)

// String returns the mode's spelling.
func (m SandboxMode) String() string { return string(m) }
