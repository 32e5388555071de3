package policy

// ApprovalPolicy is when the user is asked (`-a`, approval_policy).
type ApprovalPolicy string

// The approval policies.
const (
	Untrusted ApprovalPolicy = "untrusted"
	OnFailure ApprovalPolicy = "on-failure"
	OnRequest ApprovalPolicy = "on-request"
	Never     ApprovalPolicy = "never"
)

// ApprovalPolicies lists every approval policy in CLI order.
func ApprovalPolicies() []ApprovalPolicy {
	return []ApprovalPolicy{Untrusted, OnFailure, OnRequest, Never}
}

// ParseApprovalPolicy parses the CLI/config spelling; the error suggests the
// nearest valid one.
func ParseApprovalPolicy(s string) (ApprovalPolicy, error) {
	v, err := parseEnum("approval policy", s, []string{"untrusted", "on-failure", "on-request", "never"})
	return ApprovalPolicy(v), err
}

// String returns the CLI spelling.
func (p ApprovalPolicy) String() string { return string(p) }

// SandboxMode is how commands are confined (`-s`, sandbox_mode).
type SandboxMode string

// The sandbox modes. ExternalSandbox is config-only: Docket already runs
// inside a sandbox.
const (
	ReadOnly         SandboxMode = "read-only"
	WorkspaceWrite   SandboxMode = "workspace-write"
	DangerFullAccess SandboxMode = "danger-full-access"
	ExternalSandbox  SandboxMode = "external-sandbox"
)

// ParseSandboxMode parses the CLI/config spelling.
func ParseSandboxMode(s string) (SandboxMode, error) {
	v, err := parseEnum("sandbox mode", s, []string{"read-only", "workspace-write", "danger-full-access", "external-sandbox"})
	return SandboxMode(v), err
}

// String returns the CLI spelling.
func (m SandboxMode) String() string { return string(m) }

// Restricting reports whether the mode confines commands (read-only,
// workspace-write).
func (m SandboxMode) Restricting() bool { return m == ReadOnly || m == WorkspaceWrite }

// SandboxPolicy is a sandbox mode with its workspace-write settings.
type SandboxPolicy struct {
	Mode                SandboxMode
	WritableRoots       []string
	NetworkAccess       bool
	ExcludeTmpdirEnvVar bool
	ExcludeSlashTmp     bool
}

// SandboxPermissions is what the model asked for on a shell call.
type SandboxPermissions string

// The sandbox permissions a shell call may carry.
const (
	UseDefault       SandboxPermissions = "use_default"
	RequireEscalated SandboxPermissions = "require_escalated"
)

// ParseSandboxPermissions parses a shell call's sandbox_permissions; empty
// means use_default.
func ParseSandboxPermissions(s string) (SandboxPermissions, error) {
	if s == "" {
		return UseDefault, nil
	}
	v, err := parseEnum("sandbox_permissions", s, []string{"use_default", "require_escalated"})
	return SandboxPermissions(v), err
}

// ReviewDecision is an answer to an approval request.
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

// ParseReviewDecision parses a decision as `--decisions` and the journal
// spell it.
func ParseReviewDecision(s string) (ReviewDecision, error) {
	v, err := parseEnum("review decision", s, []string{
		"approved", "approved_for_session", "approved_execpolicy_amendment", "denied", "abort", "timed_out",
	})
	return ReviewDecision(v), err
}

// String returns the CLI spelling.
func (d ReviewDecision) String() string { return string(d) }

// IsApproval reports whether the decision lets the call run.
func (d ReviewDecision) IsApproval() bool {
	return d == Approved || d == ApprovedForSession || d == ApprovedExecpolicyAmendment
}
