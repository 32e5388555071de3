package gitwalk

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// TestGitWalkCacheWalksAgainWhenARepositoryCanHaveAppeared: a kept walk is
// brought up to date with every change that could add a git directory, or
// done again, and what a call gets always equals a fresh walk at that point.
func TestGitWalkCacheWalksAgainWhenARepositoryCanHaveAppeared(t *testing.T) {
	for _, tc := range []struct {
		name       string
		change     func(t *testing.T, ws, other, outside string)
		swap       bool // the next call walks the roots in the other order
		wantWalks  int
		wantFound  string // a .git the second call must report, relative to base
		wantTarget string // a target the second call must report, relative to base
	}{
		{name: "nothing changed: the kept walk", change: func(*testing.T, string, string, string) {}, wantWalks: 1},
		{name: "a file made in a walked directory: the kept walk", wantWalks: 1,
			change: func(t *testing.T, ws, _, _ string) { writeFile(t, filepath.Join(ws, "a", "notes.txt"), "x") }},
		{name: "a .git directory made in a walked directory: added to the kept walk", wantWalks: 1, wantFound: "ws/a/.git",
			change: func(t *testing.T, ws, _, _ string) { mkdirs(t, filepath.Join(ws, "a", ".git")) }},
		{name: "a .git file made in a walked directory: added to the kept walk", wantWalks: 1, wantFound: "other/b/.git",
			change: func(t *testing.T, _, other, _ string) {
				writeFile(t, filepath.Join(other, "b", ".git"), "gitdir: elsewhere\n")
			}},
		{name: "a new directory holding a repository: walked and added", wantWalks: 1, wantFound: "ws/new/deep/.git",
			change: func(t *testing.T, ws, _, _ string) { mkdirs(t, filepath.Join(ws, "new", "deep", ".git")) }},
		{name: "a repository moved in from outside the roots: the whole walk again", wantWalks: 2, wantFound: "ws/a/moved/.git",
			change: func(t *testing.T, ws, _, outside string) {
				mkdirs(t, filepath.Join(outside, "moved", ".git"))
				if err := os.Rename(filepath.Join(outside, "moved"), filepath.Join(ws, "a", "moved")); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a directory's permissions changed (one unreadable may have become readable): walked again", wantWalks: 1,
			change: func(t *testing.T, ws, _, _ string) {
				if err := os.Chmod(filepath.Join(ws, "a"), 0o700); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a .git made and removed again: the kept walk", wantWalks: 1,
			change: func(t *testing.T, ws, _, _ string) {
				mkdirs(t, filepath.Join(ws, "a", ".git"))
				if err := os.Remove(filepath.Join(ws, "a", ".git")); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a found .git replaced by a gitdir file: the kept walk, the new target", wantWalks: 1, wantTarget: "ws/a",
			change: func(t *testing.T, ws, _, _ string) {
				if err := os.RemoveAll(filepath.Join(ws, "sub", ".git")); err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(ws, "sub", ".git"), "gitdir: ../a\n")
			}},
		{name: "a walked directory renamed (its watches keep old paths): the whole walk again", wantWalks: 2, wantFound: "ws/renamed/.git",
			change: func(t *testing.T, ws, _, _ string) {
				if err := os.Rename(filepath.Join(ws, "sub"), filepath.Join(ws, "renamed")); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a root replaced by another directory", wantWalks: 2, wantFound: "ws/x/.git",
			change: func(t *testing.T, ws, _, outside string) {
				if err := os.Rename(ws, filepath.Join(outside, "old-ws")); err != nil {
					t.Fatal(err)
				}
				mkdirs(t, filepath.Join(ws, "x", ".git"))
			}},
		{name: "the roots in another order (another plan)", swap: true, wantWalks: 2,
			change: func(*testing.T, string, string, string) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			ws, other, outside := filepath.Join(base, "ws"), filepath.Join(base, "other"), filepath.Join(base, "outside")
			mkdirs(t, filepath.Join(ws, "a"), filepath.Join(ws, "sub", ".git"), filepath.Join(other, "b"), outside)
			roots := []string{other, ws}
			c := &Cache{}
			t.Cleanup(func() { _ = c.Close() })
			first := Find(roots, ws, c)
			if !first.Complete || !slices.Contains(first.Found, filepath.Join(ws, "sub", ".git")) {
				t.Fatalf("first walk = %+v, want it complete with ws/sub/.git", first)
			}
			tc.change(t, ws, other, outside)
			cwd := ws
			if tc.swap {
				cwd = other
			}
			got := Find(roots, cwd, c)
			fresh := Find(roots, cwd, nil)
			if c.walks != tc.wantWalks {
				t.Errorf("walks = %d, want %d", c.walks, tc.wantWalks)
			}
			if !slices.Equal(got.Found, fresh.Found) || !slices.Equal(got.Targets, fresh.Targets) || !slices.Equal(got.Held, fresh.Held) || got.Complete != fresh.Complete {
				t.Errorf("cached %+v\nfresh  %+v", got, fresh)
			}
			if tc.wantFound != "" && !slices.Contains(got.Found, filepath.Join(base, tc.wantFound)) {
				t.Errorf("found %v, want %s among them", got.Found, tc.wantFound)
			}
			if tc.wantTarget != "" && !slices.Contains(got.Targets, filepath.Join(base, tc.wantTarget)) {
				t.Errorf("targets %v, want %s among them", got.Targets, tc.wantTarget)
			}
		})
	}
}

// TestGitWalkCacheGivesTheTargetsOfNowNotOfTheWalk: where a found .git file
// points is read on every call, so repointing it needs no new walk.
func TestGitWalkCacheGivesTheTargetsOfNowNotOfTheWalk(t *testing.T) {
	ws := t.TempDir()
	mkdirs(t, filepath.Join(ws, "m", "one"), filepath.Join(ws, "m", "two"))
	writeFile(t, filepath.Join(ws, "m", ".git"), "gitdir: one\n")
	c := &Cache{}
	defer func() { _ = c.Close() }()
	if got := Find([]string{ws}, ws, c); !slices.Contains(got.Targets, filepath.Join(ws, "m", "one")) {
		t.Fatalf("targets %v, want m/one", got.Targets)
	}
	writeFile(t, filepath.Join(ws, "m", ".git"), "gitdir: two\n")
	got := Find([]string{ws}, ws, c)
	if !slices.Contains(got.Targets, filepath.Join(ws, "m", "two")) {
		t.Errorf("targets %v after repointing, want m/two", got.Targets)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGitWalkCacheIsSafeForConcurrentCalls: parallel calls share one cache
// while repositories appear; afterwards a call still equals a fresh walk.
func TestGitWalkCacheIsSafeForConcurrentCalls(t *testing.T) {
	ws := t.TempDir()
	mkdirs(t, filepath.Join(ws, "a"))
	c := &Cache{}
	defer func() { _ = c.Close() }()
	roots := []string{ws}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				_ = Find(roots, ws, c)
			}
		}()
	}
	go func() {
		defer close(done)
		for i := range 20 {
			if err := os.MkdirAll(filepath.Join(ws, "a", fmt.Sprint(i), ".git"), 0o755); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()
	<-done
	got, fresh := Find(roots, ws, c), Find(roots, ws, nil)
	if !slices.Equal(got.Found, fresh.Found) || len(got.Found) != 20 {
		t.Errorf("after concurrent calls: cached found %v, fresh %v (want 20)", got.Found, fresh.Found)
	}
}

// TestCacheKeepsWhatAWalkCutShortDidNotSee: a kept walk that stopped at
// its bound gives every later call the directories it did not see, not a
// walk that looks complete. (Not compared with a fresh walk: on a loaded
// machine the time bound may cut the two at different places.)
func TestCacheKeepsWhatAWalkCutShortDidNotSee(t *testing.T) {
	ws := t.TempDir()
	var dirs []string
	for i := range MaxEntries / 3 {
		dirs = append(dirs, filepath.Join(ws, "a", fmt.Sprint(i)))
	}
	mkdirs(t, append(dirs, filepath.Join(ws, "z", "y", "x", "repo", ".git"))...)
	c := &Cache{}
	defer func() { _ = c.Close() }()
	first := Find([]string{ws}, ws, c)
	if first.Complete || len(first.Unseen) == 0 {
		t.Fatalf("first walk = complete %t, unseen %v: the tree should be past the bound", first.Complete, first.Unseen)
	}
	again := Find([]string{ws}, ws, c)
	if c.Walks() != 1 {
		t.Errorf("walks = %d, want the kept one", c.Walks())
	}
	if again.Complete || !slices.Equal(again.Unseen, first.Unseen) {
		t.Errorf("unseen: first %v, kept %v (complete %t)", first.Unseen, again.Unseen, again.Complete)
	}
	if !underAny(filepath.Join(ws, "z", "y", "x", "repo", ".git"), again.Unseen) {
		t.Errorf("the repository the walk never reached is not within what it did not see: %v", again.Unseen)
	}
}

// TestCacheWalksACutWalkAgainOnceADirectoryIsGone: a kept walk cut short
// keeps its unseen part only while nothing was removed; once the fill is
// gone the next call walks again and sees everything.
func TestCacheWalksACutWalkAgainOnceADirectoryIsGone(t *testing.T) {
	ws := t.TempDir()
	var dirs []string
	for i := range MaxEntries / 3 {
		dirs = append(dirs, filepath.Join(ws, "fill", fmt.Sprint(i)))
	}
	mkdirs(t, append(dirs, filepath.Join(ws, "z", "repo", ".git"))...)
	c := &Cache{}
	defer func() { _ = c.Close() }()
	if first := Find([]string{ws}, ws, c); first.Complete {
		t.Fatal("the first walk should be cut short")
	}
	// A file removed changes nothing.
	writeFile(t, filepath.Join(ws, "notes"), "x")
	if Find([]string{ws}, ws, c); c.Walks() != 1 {
		t.Fatalf("walks = %d after a file was made, want 1", c.Walks())
	}
	if err := os.RemoveAll(filepath.Join(ws, "fill")); err != nil {
		t.Fatal(err)
	}
	got := Find([]string{ws}, ws, c)
	if c.Walks() != 2 || !got.Complete || len(got.Unseen) != 0 || !slices.Contains(got.Found, filepath.Join(ws, "z", "repo", ".git")) {
		t.Errorf("after the fill was removed: walks %d, %+v; want a new, complete walk finding z/repo/.git", c.Walks(), got)
	}
}
