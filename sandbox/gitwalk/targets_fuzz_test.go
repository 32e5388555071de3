package gitwalk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzTargets reads a .git file and its gitdir's commondir holding any
// text (a cloned repository's content): every target is a path the
// sandbox can protect, absolute, clean and without a NUL byte, and a
// gitdir line that names the worktree's own git directory leads to it.
func FuzzTargets(f *testing.F) {
	f.Add("gitdir: g\n", "../common\n")
	f.Add("gitdir:   /abs/path  \r\nmore", "")
	f.Add("gitdir: \x00", "\x00")
	f.Add("gitdir: ../../../../..", "/")
	f.Add("gitdir:", "x")
	f.Add("not a gitdir line", "")
	f.Fuzz(func(t *testing.T, dotGit, commondir string) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "g"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".git"), []byte(dotGit), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "g", "commondir"), []byte(commondir), 0o600); err != nil {
			t.Fatal(err)
		}
		got := Targets(filepath.Join(dir, ".git"))
		for _, p := range got {
			if !filepath.IsAbs(p) || filepath.Clean(p) != p || strings.IndexByte(p, 0) >= 0 {
				t.Fatalf("target %q from .git %q and commondir %q", p, dotGit, commondir)
			}
		}
		if line, _, _ := strings.Cut(dotGit, "\n"); strings.TrimSpace(strings.TrimPrefix(line, "gitdir:")) == "g" && strings.HasPrefix(line, "gitdir:") {
			if len(got) == 0 || got[0] != filepath.Join(dir, "g") {
				t.Fatalf("gitdir g gave %q", got)
			}
		}
	})
}
