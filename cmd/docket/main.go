// Command docket executes a coding agent's tool calls under an explicit,
// journaled state machine. See README.md and ../shared/design/CLI.md.
package main

import (
	"os"

	"github.com/docket-engine/docket/sandbox"
)

func main() {
	// The sandbox helper re-executes this binary; it must not go through
	// cobra, both for start-up time and because it restricts itself.
	if sandbox.IsHelper(os.Args) {
		os.Exit(sandbox.HelperMain(os.Args))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
