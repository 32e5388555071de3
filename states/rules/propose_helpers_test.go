package rules

import (
	"github.com/docket-engine/docket/states/cmdsafety"
)

// ProposeAmendment suggests the prefix rule that would let this command run
// next time: the first command of the script that is not known-safe (or the
// first command), whole. It returns nil for a dynamic script or when the
// prefix would be over-broad.
func ProposeAmendment(argv []string) []string {
	return ProposeAmendmentScript(cmdsafety.Analyze(argv))
}
