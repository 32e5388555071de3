// Command docket executes a coding agent's tool calls under an explicit,
// journaled state machine. See README.md and docs/cli.md.
package main

import (
	"os"

	"github.com/docket-engine/docket/cmd/docket/internal/noquery"
	"github.com/docket-engine/docket/engine"
)

func main() {
	noquery.Restore()
	// Helper modes re-execute this binary; they must not go through cobra,
	// both for start-up time and because the sandbox helper restricts itself.
	if code, ok := engine.Helper(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
