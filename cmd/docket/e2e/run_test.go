package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// result is one finished docket process.
type result struct {
	code     int
	signaled bool
	stdout   string
	stderr   string
}

// docket runs the production binary with args and extra environment,
// stdin empty.
func docket(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return run(t, docketBin, env, args...)
}

// run runs bin with args and extra environment, stdin empty.
func run(t *testing.T, bin string, env []string, args ...string) result {
	t.Helper()
	return runIn(t, bin, "", env, args...)
}

// runIn is run in directory dir ("" for the test's).
func runIn(t *testing.T, bin, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signaled = true
		}
		r.code = ee.ExitCode()
	default:
		t.Fatalf("run %s: %v", bin, err)
	}
	return r
}
