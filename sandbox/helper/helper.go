// Package helper is the entry point of the sandbox's confined side in a
// binary that is also docket: the per-call helper (docket re-executes
// itself as it when the lean docket-sandbox-helper is not beside it) and
// the session's sandbox server (which must be a cgo binary: its
// per-command init is C).
//
// The code that runs inside the sandbox before execve lives in
// sandbox/internal/confine (mounts, capabilities, Landlock, seccomp, the
// init) and sandbox/internal/server (the server and its inits); package
// sandbox, which docket's engine links to run calls, links neither. This
// package is the one door to them outside sandbox/: main packages (cmd/docket
// through engine.Helper, the benchmarks) and test binaries that are their own
// helper call Main first thing when IsHelper says so. The lean helper
// (sandbox/cmd/docket-sandbox-helper) links confine alone, without the
// server.
package helper

import "github.com/docket-engine/docket/sandbox/internal/proto"

// IsHelper reports whether args (os.Args) ask for the sandbox helper or a
// sandbox server.
func IsHelper(args []string) bool { return proto.IsHelper(args) }
