package policy

import (
	"github.com/docket-engine/docket/events"
)

// ParseRequirementKind parses a requirement kind.
func ParseRequirementKind(s string) (RequirementKind, error) {
	v, err := parseEnum("requirement", s, spellings([]RequirementKind{Skip, NeedsApproval, Forbidden}))
	return RequirementKind(v), err
}

// ParseSandboxPermissions parses a shell call's sandbox_permissions; empty
// means use_default.
func ParseSandboxPermissions(s string) (SandboxPermissions, error) {
	if s == "" {
		return UseDefault, nil
	}
	v, err := parseEnum("sandbox_permissions", s, spellings([]SandboxPermissions{UseDefault, RequireEscalated}))
	return SandboxPermissions(v), err
}

// ParseReviewDecision parses a decision as `--decisions`, a client and the
// journal spell it.
func ParseReviewDecision(s string) (events.ReviewDecision, error) {
	v, err := parseEnum("review decision", s, spellings(reviewDecisions()))
	return events.ReviewDecision(v), err
}

// reviewDecisions lists every review decision, approvals first.
func reviewDecisions() []events.ReviewDecision {
	return []events.ReviewDecision{events.Approved, events.ApprovedForSession, events.ApprovedExecpolicyAmendment, events.Denied, events.Abort, events.TimedOut}
}
