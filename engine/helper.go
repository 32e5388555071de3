package engine

import (
	"github.com/docket-engine/docket/engine/patch"
	"github.com/docket-engine/docket/sandbox/helper"
)

// Helper runs the helper mode that args (os.Args) ask for: the sandbox
// helper that restricts itself and execs a command, or the apply_patch
// helper that writes a patch under the sandbox. ok is false when args ask
// for neither. The docket binary and every test binary that runs commands
// through the engine call it first thing.
func Helper(args []string) (code int, ok bool) {
	switch {
	case helper.IsHelper(args):
		return helper.Main(args), true
	case patch.IsHelper(args):
		return patch.HelperMain(args), true
	}
	return 0, false
}
