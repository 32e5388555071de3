package policy

import (
	"fmt"

	"github.com/docket-engine/docket/events"
)

// FromConfig reads the approval and sandbox policies of a session's
// configuration, with DESIGN.md's defaults (on-request, read-only) for empty
// values.
func FromConfig(c events.SessionConfig) (ApprovalPolicy, SandboxPolicy, error) {
	ap, sm := OnRequest, ReadOnly
	var err error
	if c.ApprovalPolicy != "" {
		if ap, err = ParseApprovalPolicy(c.ApprovalPolicy); err != nil {
			return "", SandboxPolicy{}, fmt.Errorf("approval_policy: %w", err)
		}
	}
	if c.SandboxMode != "" {
		if sm, err = ParseSandboxMode(c.SandboxMode); err != nil {
			return "", SandboxPolicy{}, fmt.Errorf("sandbox_mode: %w", err)
		}
	}
	return ap, SandboxPolicy{
		Mode:                sm,
		WritableRoots:       append([]string(nil), c.WritableRoots...),
		NetworkAccess:       c.NetworkAccess,
		ExcludeTmpdirEnvVar: c.ExcludeTmpdirEnvVar,
		ExcludeSlashTmp:     c.ExcludeSlashTmp,
	}, nil
}
