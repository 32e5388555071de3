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
		helperBin = filepath.Join(filepath.Dir(docketBin), "docket-sandbox-helper")
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
