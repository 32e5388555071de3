package sandbox

import (
	"github.com/docket-engine/docket/events"
)

// Classify reports whether a failed sandboxed run was denied by the
// sandbox, with the evidence, or nil for an ordinary result. It is
// ClassifyAt without a working directory, so relative paths in messages are
// judged only where the plan forbids writing everywhere.
func Classify(out events.ExecOutcome, plan events.SandboxPlan) *events.DenialEvidence {
	return ClassifyAt(out, plan, "")
}
