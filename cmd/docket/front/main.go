// Command front is docket as `make build` installs it: a small binary that
// runs `docket sandbox` through the per-user sandbox daemon and hands
// every other command line to docket-core, the full docket beside it.
//
// The full binary spends ten-odd milliseconds in package initialisers
// before main; this one does not link them. Installed as `docket`, with
// `docket-core` (./cmd/docket) in the same directory.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// coreName is the full docket's file name, beside this binary.
const coreName = "docket-core"

func main() {
	core, err := corePath()
	if err != nil {
		fmt.Fprintln(os.Stderr, "docket:", err)
		os.Exit(1)
	}
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "sandbox" {
		if code, done := sandboxViaDaemon(core, args); done {
			os.Exit(code)
		}
	}
	err = syscall.Exec(core, append([]string{os.Args[0]}, args...), os.Environ())
	fmt.Fprintf(os.Stderr, "docket: run %s: %v\n", core, err)
	os.Exit(1)
}

// corePath is docket-core next to this binary (links resolved, so a link
// to docket on PATH finds it too).
func corePath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this binary: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	core := filepath.Join(filepath.Dir(exe), coreName)
	if _, err := os.Stat(core); err != nil {
		return "", fmt.Errorf("%s: the full docket must be installed beside this one (make build installs both): %w", core, err)
	}
	return core, nil
}
