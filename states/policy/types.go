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
	v, err := parseEnum("approval policy", s, spellings(ApprovalPolicies()))
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

// SandboxModes lists every sandbox mode in CLI order.
func SandboxModes() []SandboxMode {
	return []SandboxMode{ReadOnly, WorkspaceWrite, DangerFullAccess, ExternalSandbox}
}

// ParseSandboxMode parses the CLI/config spelling.
func ParseSandboxMode(s string) (SandboxMode, error) {
	v, err := parseEnum("sandbox mode", s, spellings(SandboxModes()))
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
