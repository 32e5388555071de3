// Command docket-sandbox-helper is docket's sandbox helper on its own.
//
// docket re-executes itself as the helper by default, which makes every
// sandboxed call pay for the start-up of the whole docket binary (its
// package initialisers alone take milliseconds). Installed next to docket,
// this binary is used instead (see sandbox.DefaultHelperPath). Build it
// without cgo: the helper only loads the seccomp filter docket compiled,
// so it needs no libseccomp, and a static pure-Go binary starts fastest.
// It links only the confined side (sandbox/internal/confine), not the
// package sandbox that docket runs calls with.
//
//	CGO_ENABLED=0 go build -o "$(dirname "$(command -v docket)")" ./sandbox/cmd/docket-sandbox-helper
package main

import (
	"fmt"
	"os"

	"github.com/docket-engine/docket/sandbox/internal/confine"
	"github.com/docket-engine/docket/sandbox/internal/proto"
)

func main() {
	if !proto.IsHelper(os.Args) {
		fmt.Fprintln(os.Stderr, "docket-sandbox-helper is started by docket; it is not a command of its own")
		os.Exit(2)
	}
	// No sandbox server here: the server's init is C, and this binary is
	// built without cgo so that it starts fast; docket runs the servers.
	os.Exit(confine.Main(os.Args, nil))
}
