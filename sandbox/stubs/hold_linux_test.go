package stubs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestHoldGivesEachKindOfProtectedPathItsBind: Hold opens first and looks
// only when the open fails, so each kind of path at a protected name is
// still told apart: a missing one becomes a stub docket made, whatever the
// umask took from mkdir's mode (the mode is the stub's mark: a stub left
// 0500 would never be removed), and goes at release; the user's directory
// is held and stays; a regular file (a worktree's .git) is bound as it is;
// a dangling symlink gets the stub at its target.
func TestHoldGivesEachKindOfProtectedPathItsBind(t *testing.T) {
	for _, tc := range []struct {
		name  string
		umask int
		setup func(t *testing.T, ws, p string) // nil: nothing there
		bound func(ws, p string) string        // the path Hold returns
		after bool                             // whether the bound path is there after release
	}{
		{name: "missing, umask 022", umask: 0o022, bound: same},
		{name: "missing, umask 077: still 0555 and removed", umask: 0o077, bound: same},
		{name: "missing, umask 0", umask: 0, bound: same},
		{name: "the user's directory: held, kept", umask: 0o022, after: true, bound: same,
			setup: func(t *testing.T, _, p string) { mustDo(t, os.Mkdir(p, 0o755)) }},
		{name: "a regular file: bound as it is", umask: 0o022, after: true, bound: same,
			setup: func(t *testing.T, _, p string) { mustDo(t, os.WriteFile(p, []byte("gitdir: x\n"), 0o644)) }},
		{name: "a dangling symlink: the stub is at its target", umask: 0o077,
			bound: func(ws, _ string) string { return filepath.Join(ws, "target") },
			setup: func(t *testing.T, ws, p string) { mustDo(t, os.Symlink(filepath.Join(ws, "target"), p)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			p := filepath.Join(ws, ".git")
			if tc.setup != nil {
				tc.setup(t, ws, p)
			}
			want := tc.bound(ws, p)
			old := syscall.Umask(tc.umask)
			keep, release, err := Hold([]string{p}, []string{ws}, filepath.Join(t.TempDir(), "stubs"))
			syscall.Umask(old)
			if err != nil {
				t.Fatal(err)
			}
			if len(keep) != 1 || keep[0] != want {
				t.Fatalf("Hold gave %q, want [%s]", keep, want)
			}
			fi, err := os.Lstat(want)
			if err != nil {
				t.Fatal(err)
			}
			if tc.setup == nil || tc.bound(ws, p) != p {
				// A stub docket made: its mode is the mark release checks.
				if !fi.IsDir() || fi.Mode().Perm() != Mode {
					t.Fatalf("stub %s is %v, want a directory %o", want, fi.Mode(), Mode)
				}
			}
			release()
			_, err = os.Lstat(want)
			if there := err == nil; there != tc.after {
				t.Fatalf("after release %s there: %v, want %v (%v)", want, there, tc.after, err)
			}
		})
	}
}

func same(_, p string) string { return p }

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestHoldAcrossRootsKeepsOrderAndRemovesEveryStub: for a call's stubs in
// several roots, what Hold returns is in the paths' order, every stub is
// gone after release, and a target two protected symlinks in different
// roots point to is held twice and still removed (the second one out
// removes it).
func TestHoldAcrossRootsKeepsOrderAndRemovesEveryStub(t *testing.T) {
	roots := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	target := filepath.Join(roots[2], "shared-target")
	var paths, want []string
	for _, r := range roots {
		for _, n := range []string{".git", ".docket", ".agents"} {
			paths = append(paths, filepath.Join(r, n))
			want = append(want, filepath.Join(r, n))
		}
	}
	for _, r := range roots[:2] {
		l := filepath.Join(r, ".codex")
		mustDo(t, os.Symlink(target, l))
		paths = append(paths, l)
		want = append(want, target)
	}
	keep, release, err := Hold(paths, roots, filepath.Join(t.TempDir(), "stubs"))
	if err != nil {
		t.Fatal(err)
	}
	if len(keep) != len(want) {
		t.Fatalf("Hold gave %q, want %q", keep, want)
	}
	for i := range want {
		if keep[i] != want[i] {
			t.Fatalf("Hold gave %q, want %q", keep, want)
		}
		if fi, err := os.Lstat(want[i]); err != nil || !fi.IsDir() {
			t.Fatalf("while held, %s: %v %v", want[i], fi, err)
		}
	}
	release()
	for _, p := range want {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("after release %s is still there (%v)", p, err)
		}
	}
}
