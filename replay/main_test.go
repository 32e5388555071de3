package replay_test

import (
	"os"
	"testing"

	"github.com/docket-engine/docket/engine/patch"
	"github.com/docket-engine/docket/sandbox"
)

func TestMain(m *testing.M) {
	switch {
	case sandbox.IsHelper(os.Args):
		os.Exit(sandbox.HelperMain(os.Args))
	case patch.IsHelper(os.Args):
		os.Exit(patch.HelperMain(os.Args))
	}
	os.Exit(m.Run())
}
