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
// hooks the environment can arm (DOCKET_CRASH_AT, DOCKET_FAULT_LOG);
// frontBin is the front binary as `make build` installs it, with docketBin
// beside it as docket-core. $DOCKET_TEST_BIN and $DOCKET_TEST_FAULT_BIN
// name the first two when make has built them before the tests; only the
// ones not named are built here.
var docketBin, faultBin, frontBin string

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
	}{{&docketBin, "docket", nil}, {&faultBin, "docket-fault", []string{"-tags", "docketfault"}}} {
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
	if err := buildFront(dir); err != nil {
		fmt.Fprintln(os.Stderr, "build the front binary:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildFront builds the front binary into dir/front/docket and links the
// production binary beside it as docket-core.
func buildFront(dir string) error {
	front := filepath.Join(dir, "front")
	if err := os.Mkdir(front, 0o755); err != nil {
		return err
	}
	frontBin = filepath.Join(front, "docket")
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	// As make build compiles it, warnings included.
	build := exec.Command(cc, "-O2", "-Wall", "-Wextra", "-Werror", "-o", frontBin, "front/front.c")
	build.Dir = ".."
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return err
	}
	return linkOrCopy(docketBin, filepath.Join(front, "docket-core"))
}

// linkOrCopy hard-links src to dst, or copies it when they lie on different
// file systems (a docketBin make built under the checkout).
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}
