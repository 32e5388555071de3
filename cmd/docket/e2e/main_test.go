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
// $DOCKET_TEST_BIN and $DOCKET_TEST_FAULT_BIN name them when make has
// built them before the tests; only the ones not named are built here.
var docketBin, faultBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "docket-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	docketBin, faultBin = os.Getenv("DOCKET_TEST_BIN"), os.Getenv("DOCKET_TEST_FAULT_BIN")
	for _, b := range []struct {
		path  *string
		name  string
		flags []string
	}{{&docketBin, "docket", []string{"-tags", "grpcnotrace"}}, {&faultBin, "docket-fault", []string{"-tags", "docketfault,grpcnotrace"}}} {
		if *b.path != "" {
			continue
		}
		*b.path = filepath.Join(dir, b.name)
		args := append(append([]string{"build"}, b.flags...), "-o", *b.path, ".")
		build := exec.Command("go", args...)
		build.Dir = ".."
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build docket:", args, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
