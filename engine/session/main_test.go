package session_test

import (
	"os"
	"testing"

	"github.com/docket-engine/docket/engine"
)

// TestMain lets the test binary serve as the sandbox and patch helper, as
// an embedding program's main does.
func TestMain(m *testing.M) {
	if code, ok := engine.Helper(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
