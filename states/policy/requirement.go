package policy

import (
	"github.com/docket-engine/docket/states"
	"github.com/docket-engine/docket/states/rules"
)

// Kind is the shape of a requirement.
type Kind string

// The requirement kinds, spelled as `rules check` prints them.
const (
	Skip          Kind = "skip"
	NeedsApproval Kind = "needs_approval"
	Forbidden     Kind = "forbidden"
)

// String returns the kind's spelling.
func (k Kind) String() string { return string(k) }

// ParseKind parses a requirement kind.
func ParseKind(s string) (Kind, error) {
	v, err := parseEnum("requirement", s, []string{"skip", "needs_approval", "forbidden"})
	return Kind(v), err
}

// Cause is the stable code that says why a decision was taken; the FSM's
// transitions carry it. The codes live with the machine in package states.
type Cause = states.Cause

// Causes this package produces, re-exported from states for brevity.
const (
	CausePolicySkip           = states.CausePolicySkip
	CauseRuleAllow            = states.CauseRuleAllow
	CauseRulePrompt           = states.CauseRulePrompt
	CauseRuleForbidden        = states.CauseRuleForbidden
	CauseKnownSafe            = states.CauseKnownSafe
	CauseEscalationRequested  = states.CauseEscalationRequested
	CauseDangerFullAccess     = states.CauseDangerFullAccess
	CauseExternalSandbox      = states.CauseExternalSandbox
	CauseSandboxDenial        = states.CauseSandboxDenial
	CauseRetryNotAllowed      = states.CauseRetryNotAllowed
	CauseAlreadyApproved      = states.CauseAlreadyApproved
	CauseSessionGrant         = states.CauseSessionGrant
	CauseUserApproved         = states.CauseUserApproved
	CauseDangerousCommand     = states.CauseDangerous
	CauseUntrustedPolicy      = states.CauseUntrustedPolicy
	CauseOnRequestPolicy      = states.CauseOnRequestPolicy
	CauseOutsideWritableRoots = states.CauseOutsideWritableRoots
)

// Requirement is what a tool call needs before it may run.
type Requirement struct {
	Kind Kind
	// BypassSandbox is set on a Skip when every command hit an allow rule.
	BypassSandbox bool
	// Reason is shown to the user (NeedsApproval) or the model (Forbidden).
	Reason string
	// ProposedAmendment is the prefix the user may save as an allow rule.
	ProposedAmendment []string
	// Cause is the audit code for this requirement.
	Cause Cause
	// Rules is the rule evaluation behind a shell requirement.
	Rules rules.Evaluation
	// KnownSafe and Dangerous are the command-safety verdicts on the argv.
	KnownSafe, Dangerous bool
}

// String returns the kind's spelling: skip, needs_approval or forbidden.
func (r Requirement) String() string { return string(r.Kind) }
