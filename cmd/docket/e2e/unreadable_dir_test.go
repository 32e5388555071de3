package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/journal"
)

// withoutDACOverride runs docket so that file modes bind it: as itself when
// not root, and as root without the capabilities that bypass them (through
// setpriv) when root, since root reads a mode-000 directory regardless.
func withoutDACOverride(t *testing.T, args ...string) result {
	t.Helper()
	if os.Geteuid() != 0 {
		return docket(t, nil, args...)
	}
	setpriv := "/usr/bin/setpriv"
	if _, err := os.Stat(setpriv); err != nil {
		t.Fatalf("running as root, the test needs %s to drop CAP_DAC_OVERRIDE: %v", setpriv, err)
	}
	return run(t, setpriv, nil, append([]string{"--bounding-set=-dac_override,-dac_read_search", "--", docketBin}, args...)...)
}

// One session day-directory that cannot be read hides only its own
// sessions: `sessions` names it and lists the rest, and audit, replay and
// resume of another session work, by full id and by prefix.
func TestAnUnreadableDayDirectoryBlocksNoOtherSession(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	script := replies(t, "first", "again")
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-s", "workspace-write", "-a", "never",
		"--model-script", script, "go")
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	sf, err := journal.Find(home, "last")
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(home, "sessions", "2001", "02", "03")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "0190a1b2-0000-7000-8000-000000000000.docket"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bad, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(bad, 0o755) })

	r = withoutDACOverride(t, "sessions", "--home", home)
	if r.code != 0 || !strings.Contains(r.stdout, sf.ID) || !strings.Contains(r.stderr, bad) {
		t.Fatalf("sessions: exit %d; want 0, the readable session %s listed and %s named:\nstdout:\n%s\nstderr:\n%s",
			r.code, sf.ID, bad, r.stdout, r.stderr)
	}
	for _, args := range [][]string{
		{"audit", "--home", home, sf.ID},
		{"audit", "--home", home, sf.ID[:13]},
		{"replay", "--home", home, sf.ID},
		{"resume", "--home", home, "--model-script", script, sf.ID, "more"},
	} {
		r := withoutDACOverride(t, args...)
		if r.code != 0 {
			t.Errorf("%s: exit %d, want 0:\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
	// A session that may be in the unreadable directory: not found, and
	// the error says where docket could not look.
	r = withoutDACOverride(t, "audit", "--home", home, "0190a1b2")
	if r.code == 0 || !strings.Contains(r.stderr, bad) {
		t.Errorf("audit of a session in the unreadable directory: exit %d; want a failure naming %s:\n%s", r.code, bad, r.stderr)
	}
}
