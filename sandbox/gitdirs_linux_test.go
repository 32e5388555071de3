package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func mkdirs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGitDirsFindsTheRepositoriesARootLiesInOrContains(t *testing.T) {
	base := t.TempDir()
	tmp := filepath.Join(base, "tmp")
	repo := filepath.Join(tmp, "repo")
	ws := filepath.Join(repo, "pkg", "ws")
	mkdirs(t, filepath.Join(repo, ".git"), filepath.Join(ws, "vendor", "lib", ".git"), filepath.Join(ws, "mod", "gitdir"))
	if err := os.WriteFile(filepath.Join(ws, "mod", ".git"), []byte("gitdir: gitdir\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := gitDirs([]string{ws, tmp}, ws)
	wantHeld := []string{
		filepath.Join(repo, ".git"),        // the repository around the workspace
		filepath.Join(repo, "pkg", ".git"), // a writable directory above the workspace: a placeholder
	}
	wantTargets := []string{filepath.Join(ws, "mod", "gitdir")} // what a found gitdir file names
	wantFound := []string{
		filepath.Join(ws, "mod", ".git"), // a gitdir file
		filepath.Join(ws, "vendor", "lib", ".git"),
	}
	if !got.Complete || !slices.Equal(got.Held, wantHeld) || !slices.Equal(got.Found, wantFound) || !slices.Equal(got.Targets, wantTargets) {
		t.Errorf("gitDirs = %+v\nwant held %v, found %v, targets %v", got, wantHeld, wantFound, wantTargets)
	}
}

func TestGitWalkSpendsItsBudgetOnTheWorkspaceFirst(t *testing.T) {
	base := t.TempDir()
	big, ws := filepath.Join(base, "big"), filepath.Join(base, "ws")
	mkdirs(t, filepath.Join(ws, "a", "b", ".git"), big)
	for i := 0; i < 40; i++ {
		mkdirs(t, filepath.Join(big, fmt.Sprint(i)))
	}
	mkdirs(t, filepath.Join(big, "39", ".git"))
	for _, tc := range []struct {
		name      string
		order     []string
		wantFound []string
	}{
		{"workspace first: its repository is found, the big root is cut", []string{ws, big}, []string{filepath.Join(ws, "a", "b", ".git")}},
		{"big root first: the budget is gone before the workspace", []string{big, ws}, nil},
	} {
		var found []string
		complete := walkForGitDirs(tc.order, []string{big, ws}, func(p string, _ bool) { found = append(found, p) }, 20, time.Now().Add(time.Minute))
		if complete || !slices.Equal(found, tc.wantFound) {
			t.Errorf("%s: found %v (complete %t), want %v and a partial walk", tc.name, found, complete, tc.wantFound)
		}
	}
}
