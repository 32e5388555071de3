// Command docket executes a coding agent's tool calls under an explicit,
// journaled state machine. See README.md and ../shared/design/CLI.md.
package main

import (
	"os"

	"github.com/docket-engine/docket/engine/patch"
	"github.com/docket-engine/docket/sandbox"
)

func main() {
	// Helper modes re-execute this binary; they must not go through cobra,
	// both for start-up time and because the sandbox helper restricts itself.
	switch {
	case sandbox.IsHelper(os.Args):
		os.Exit(sandbox.HelperMain(os.Args))
	case patch.IsHelper(os.Args):
		os.Exit(patch.HelperMain(os.Args))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
