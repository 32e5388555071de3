package helper

import (
	"github.com/docket-engine/docket/sandbox/internal/confine"
	"github.com/docket-engine/docket/sandbox/internal/server"
)

// Main runs the helper, or the sandbox server its spec asks for: args is
// os.Args. It returns the exit status for os.Exit.
func Main(args []string) int { return confine.Main(args, server.Serve) }
