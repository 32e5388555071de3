package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocketHomeUnderAWritableRootStaysReadOnly puts $DOCKET_HOME inside
// the workspace and has a command append to its config, rules and a
// journal: it works without the sandbox (so the attack is real) and fails
// in workspace-write, leaving every file as it was.
func TestDocketHomeUnderAWritableRootStaysReadOnly(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	home := filepath.Join(ws, "dot-docket")
	files := []string{
		filepath.Join(home, "config.toml"),
		filepath.Join(home, "rules", "default.rules"),
		filepath.Join(home, "sessions", "s.journal"),
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"DOCKET_HOME=" + home}
	for _, mode := range []string{"danger-full-access", "workspace-write"} {
		for _, f := range files {
			if err := os.WriteFile(f, []byte("original\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := docket(t, env, "sandbox", "-s", mode, "-C", ws, "--", "sh", "-c", `echo pwned >> "$1"`, "sh", f)
			b, _ := os.ReadFile(f)
			written := strings.Contains(string(b), "pwned")
			switch {
			case mode == "danger-full-access" && !written:
				t.Fatalf("the attack does not work even unsandboxed (exit %d): %s", r.code, r.stderr)
			case mode == "workspace-write" && (written || r.code == 0):
				t.Errorf("%s: ESCAPE: wrote %s (exit %d)", mode, f, r.code)
			}
		}
	}
}
