// Command docket-sandbox-helper is docket's sandbox helper on its own.
//
// docket re-executes itself as the helper by default, which makes every
// sandboxed call pay for the start-up of the whole docket binary (its
// package initialisers alone take milliseconds). Installed next to docket,
// this binary is used instead (see sandbox.DefaultHelperPath). Build it
// without cgo: the helper only loads the seccomp filter docket compiled,
// so it needs no libseccomp, and a static pure-Go binary starts fastest.
//
//	CGO_ENABLED=0 go build -o "$(dirname "$(command -v docket)")" ./sandbox/cmd/docket-sandbox-helper
package main

import (
	"fmt"
	"os"

	"github.com/docket-engine/docket/sandbox"
)

func main() {
	if !sandbox.IsHelper(os.Args) {
		fmt.Fprintln(os.Stderr, "docket-sandbox-helper is started by docket; it is not a command of its own")
		os.Exit(2)
	}
	os.Exit(sandbox.HelperMain(os.Args))
}
