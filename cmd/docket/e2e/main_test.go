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

// docketBin is the production binary, built once for the whole package;
// faultBin is the same binary built with the docketfault tag, whose fault
// hooks the environment can arm (DOCKET_CRASH_AT, DOCKET_FAULT_LOG).
var docketBin, faultBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "docket-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	docketBin = filepath.Join(dir, "docket")
	faultBin = filepath.Join(dir, "docket-fault")
	for _, b := range [][]string{{"-o", docketBin}, {"-tags", "docketfault", "-o", faultBin}} {
		build := exec.Command("go", append(append([]string{"build"}, b...), ".")...)
		build.Dir = ".."
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build docket:", b, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
