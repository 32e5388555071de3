package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	helperOnce sync.Once
	helperBin  string
	helperErr  error
)

// installFiles is docket as `make build` installs it: the full binary and
// the lean sandbox helper beside it (built once, next to docketBin).
func installFiles(t *testing.T) map[string]string {
	t.Helper()
	helperOnce.Do(func() {
		// make's prebuilt helper when it names one; else one built here,
		// away from docketBin, so that the other tests' docket stays its
		// own helper as before.
		if helperBin = os.Getenv("DOCKET_TEST_HELPER"); helperBin != "" {
			return
		}
		dir, err := os.MkdirTemp("", "docket-e2e-helper-")
		if err != nil {
			helperErr = err
			return
		}
		helperBin = filepath.Join(dir, "docket-sandbox-helper")
		build := exec.Command("go", "build", "-o", helperBin, "./sandbox/cmd/docket-sandbox-helper")
		build.Dir = "../../.."
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := build.CombinedOutput()
		if err != nil {
			helperErr = &buildError{err: err, out: string(out)}
		}
	})
	if helperErr != nil {
		t.Fatal(helperErr)
	}
	return map[string]string{"docket": docketBin, "docket-sandbox-helper": helperBin}
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string {
	return "build the sandbox helper: " + e.err.Error() + "\n" + e.out
}
