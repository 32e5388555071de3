package permissions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainGolden keeps the words --explain prints for a profile with
// every kind of rule in testdata/explain.golden.
func TestExplainGolden(t *testing.T) {
	on := true
	r := mustResolve(t, "dev", map[string]Profile{"dev": {
		Filesystem: map[string]any{":root": "read", ":project_roots": map[string]any{".": "write", "**/.env": "none"}, "~/.ssh": "none", "glob_scan_max_depth": int64(4)},
		Network: &NetworkTable{Enabled: &on, Mode: "limited", Domains: map[string]string{"pypi.org": "allow", "*.evil.example": "deny"},
			UnixSockets: map[string]string{"/run/docker.sock": "none"}},
	}})
	got := strings.Join(r.Explain(), "\n") + "\n"
	golden := filepath.Join("testdata", "explain.golden")
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("explain differs from %s:\n%s", golden, got)
	}
	if lines := mustResolve(t, BuiltinFullAccess, nil).Explain(); len(lines) != 1 || !strings.Contains(lines[0], "no sandbox") {
		t.Fatalf("full access: %q", lines)
	}
	if lines := mustResolve(t, "p", map[string]Profile{"p": {Filesystem: map[string]any{"/srv": "read"}}}).Explain(); !strings.Contains(strings.Join(lines, "\n"), "every path no rule names: hidden") {
		t.Fatalf("unlisted paths: %q", lines)
	}
}
