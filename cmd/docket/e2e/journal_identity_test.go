package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/docket-engine/docket/journal"
)

// A session's journal replaced by a link to (or a copy of) another
// session's is not read as that session: audit, replay and resume of the
// replaced session fail and name both ids, and the other session still
// reads.
func TestAJournalReplacedByAnotherSessionsIsRefused(t *testing.T) {
	replace := []struct {
		name string
		with func(from, to string) error
	}{
		{"symbolic link", os.Symlink},
		{"hard link", os.Link},
		{"copy", func(from, to string) error {
			b, err := os.ReadFile(from)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, 0o600)
		}},
	}
	for _, rc := range replace {
		t.Run(rc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			script := replies(t, "answer")
			var ids []journal.SessionFile
			for range 2 {
				r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-s", "workspace-write", "-a", "never",
					"--model-script", script, "go")
				if r.code != 0 {
					t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
				}
				sf, err := journal.Find(home, "last")
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, sf)
			}
			victim, other := ids[0], ids[1]
			if err := os.Remove(victim.Path); err != nil {
				t.Fatal(err)
			}
			if err := rc.with(other.Path, victim.Path); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"audit", "--home", home, victim.ID},
				{"replay", "--home", home, victim.ID},
				{"resume", "--home", home, "--model-script", script, victim.ID, "more"},
			} {
				r := docket(t, nil, args...)
				out := r.stdout + r.stderr
				if r.code == 0 || !strings.Contains(out, victim.ID) || !strings.Contains(out, other.ID) || !strings.Contains(out, "not session") {
					t.Errorf("%s: exit %d; want a failure naming both %s and %s:\n%s", args[0], r.code, victim.ID, other.ID, out)
				}
			}
			if r := docket(t, nil, "audit", "--home", home, other.ID); r.code != 0 {
				t.Errorf("audit of the intact session: exit %d\n%s", r.code, r.stderr)
			}
		})
	}
}
