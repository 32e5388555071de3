package policy

import (
	"github.com/docket-engine/docket/states"
	"github.com/docket-engine/docket/states/rules"
)

// RequirementKind is the shape of a requirement.
type RequirementKind string

// The requirement kinds, spelled as `rules check` prints them.
const (
	Skip          RequirementKind = "skip"
	NeedsApproval RequirementKind = "needs_approval"
	Forbidden     RequirementKind = "forbidden"
)

// String returns the kind's spelling.
func (k RequirementKind) String() string { return string(k) }

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
	CauseOutOfProcess         = states.CauseOutOfProcess
	CauseNeedsApproval        = states.CauseNeedsApproval
	CausePolicyForbidden      = states.CausePolicyForbidden
)

// Requirement is what a tool call needs before it may run. Any package may
// build one, but only ExecRequirement's allow-rule step can make one that
// bypasses the sandbox: the flag is unexported.
type Requirement struct {
	Kind RequirementKind
	// bypassSandbox is set on a Skip when every command hit an allow rule
	// from the user's own rules files.
	bypassSandbox bool
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

// BypassSandbox reports whether the call may run without the sandbox
// because an allow rule from the user's rules said so.
func (r Requirement) BypassSandbox() bool { return r.bypassSandbox }
