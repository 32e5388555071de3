package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// The fault hooks are a test build's feature: the production binary must
// not die, nor write a point log, whatever the environment says. The same
// session under the docketfault build dies at the same point, so the
// environment below does arm the hooks where they exist.
func TestProductionBinaryIgnoresFaultHooksInTheEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		bin        string
		wantKilled bool
	}{
		{name: "the docketfault build dies at the point", bin: faultBin, wantKilled: true},
		{name: "the production build ignores it", bin: docketBin, wantKilled: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCrashRun(t)
			logFile := filepath.Join(t.TempDir(), "points.log")
			env := []string{"DOCKET_CRASH_AT=after:run_sandboxed@1", "DOCKET_FAULT_LOG=" + logFile}
			r := run(t, tt.bin, env, "exec", "--skip-git-repo-check", "--home", c.home, "-C", c.ws, "-a", "on-failure", "-s", "workspace-write",
				"--model-script", c.script, "--decisions", "approved,approved,approved", "go")
			if r.signaled != tt.wantKilled {
				t.Fatalf("killed = %t, want %t (exit %d):\n%s", r.signaled, tt.wantKilled, r.code, r.stderr)
			}
			_, err := os.Stat(logFile)
			if logged := err == nil; logged != tt.wantKilled {
				t.Fatalf("point log written = %t, want %t", logged, tt.wantKilled)
			}
			if !tt.wantKilled && r.code != 0 {
				t.Fatalf("the production binary exited %d:\n%s", r.code, r.stderr)
			}
		})
	}
}
