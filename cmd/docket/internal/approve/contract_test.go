package approve

import (
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/events"
)

// --decisions keeps the engine's Approver contract (the terminal's side of
// it, cancellation included, is tested on a pty in terminal_test.go).
func TestFlagsKeepTheApproverContract(t *testing.T) {
	enginetest.CheckApprover(t, func(_ *testing.T, answers ...events.ReviewDecision) engine.Approver {
		return NewFlags(answers)
	})
}
