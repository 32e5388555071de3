// Package e2e drives the docket binary through its command line, as a user
// or a client would: crash-and-resume, parking, exit codes.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// docketBin is the binary built once for the whole package.
var docketBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "docket-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	docketBin = filepath.Join(dir, "docket")
	build := exec.Command("go", "build", "-o", docketBin, ".")
	build.Dir = ".."
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build docket:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
