package gitwalk

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
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
		{name: "a repository moved in from outside the roots: walked where it lands", wantWalks: 1, wantFound: "ws/a/moved/.git",
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
		{name: "a walked directory renamed: walked at its new place", wantWalks: 1, wantFound: "ws/renamed/.git",
			change: func(t *testing.T, ws, _, _ string) {
				if err := os.Rename(filepath.Join(ws, "sub"), filepath.Join(ws, "renamed")); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a walked directory moved into another root: walked there", wantWalks: 1, wantFound: "other/b/sub/.git",
			change: func(t *testing.T, ws, other, _ string) {
				if err := os.Rename(filepath.Join(ws, "sub"), filepath.Join(other, "b", "sub")); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a repository removed: no longer listed", wantWalks: 1,
			change: func(t *testing.T, ws, _, _ string) {
				if err := os.RemoveAll(filepath.Join(ws, "sub")); err != nil {
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
	if !events.WithinAny(filepath.Join(ws, "z", "y", "x", "repo", ".git"), again.Unseen) {
		t.Errorf("the repository the walk never reached is not within what it did not see: %v", again.Unseen)
	}
}

// TestCacheWalksOnFromWhatACutWalkDidNotSeeOnceADirectoryIsGone: a kept
// walk cut short keeps its unseen part while nothing was removed; once the
// fill is gone, the entries it held go back to the budget and the next
// call walks on from the unseen part (not the whole walk again) and sees
// everything.
func TestCacheWalksOnFromWhatACutWalkDidNotSeeOnceADirectoryIsGone(t *testing.T) {
	ws := t.TempDir()
	var dirs []string
	// A small budget and fill: removing MaxEntries/3 directories raises
	// enough inotify events to overflow the queue on a loaded machine, and
	// an overflow rightly walks everything again.
	for i := range 300 {
		dirs = append(dirs, filepath.Join(ws, "fill", fmt.Sprint(i)))
	}
	mkdirs(t, append(dirs, filepath.Join(ws, "z", "repo", ".git"))...)
	c := &Cache{budget: 200}
	defer func() { _ = c.Close() }()
	if first := Find([]string{ws}, ws, c); first.Complete {
		t.Fatal("the first walk should be cut short")
	}
	// A file made changes nothing.
	writeFile(t, filepath.Join(ws, "notes"), "x")
	if got := Find([]string{ws}, ws, c); c.Walks() != 1 || got.Complete {
		t.Fatalf("after a file was made: walks %d, complete %t; want the kept, cut walk", c.Walks(), got.Complete)
	}
	if err := os.RemoveAll(filepath.Join(ws, "fill")); err != nil {
		t.Fatal(err)
	}
	got := Find([]string{ws}, ws, c)
	if c.Walks() != 1 || !got.Complete || len(got.Unseen) != 0 || !slices.Contains(got.Found, filepath.Join(ws, "z", "repo", ".git")) {
		t.Errorf("after the fill was removed: walks %d, %+v; want the kept walk, now complete, finding z/repo/.git", c.Walks(), got)
	}
}

// TestCacheCatchesARepositoryMadeDeepInACutWalkWithoutWalkingAgain is the
// session's case with a large /tmp: the kept walk is cut short, and
// between two calls directories come and go (a build, the stubs of the
// last call) and a repository is made deep in the part the walk saw. The
// next call finds it from the events alone: no whole walk again, nothing
// the walk did not see made writable.
func TestCacheCatchesARepositoryMadeDeepInACutWalkWithoutWalkingAgain(t *testing.T) {
	ws := t.TempDir()
	seen, far := filepath.Join(ws, "a"), filepath.Join(ws, "b", "c", "d", "e", "repo", ".git")
	mkdirs(t, filepath.Join(seen, "tmpdir"), far)
	for i := range 60 {
		mkdirs(t, filepath.Join(ws, "b", fmt.Sprint(i)))
	}
	c := &Cache{budget: 80}
	defer func() { _ = c.Close() }()
	first := Find([]string{ws}, ws, c)
	if first.Complete || !events.WithinAny(far, first.Unseen) || events.WithinAny(seen, first.Unseen) {
		t.Fatalf("first walk = %+v: want it cut short, with %s unseen and %s seen", first, far, seen)
	}
	// Another process's temporary directory gone, a stub made and removed.
	if err := os.Remove(filepath.Join(seen, "tmpdir")); err != nil {
		t.Fatal(err)
	}
	mkdirs(t, filepath.Join(ws, ".agents"))
	if err := os.Remove(filepath.Join(ws, ".agents")); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(seen, "x", "y", "z", "w", "proj", ".git")
	mkdirs(t, deep)
	got := Find([]string{ws}, ws, c)
	if c.Walks() != 1 {
		t.Errorf("walks = %d, want the kept walk brought up to date", c.Walks())
	}
	if !slices.Contains(got.Found, deep) {
		t.Errorf("found %v, want %s among them", got.Found, deep)
	}
	if got.Complete || !events.WithinAny(far, got.Unseen) {
		t.Errorf("unseen %v (complete %t): the repository the walk never reached must stay within it", got.Unseen, got.Complete)
	}
}

// TestCacheKeepsEveryDirectoryWatchedOrUnseenThroughRandomChanges: after
// any series of changes (directories made, removed and moved within,
// into and out of the roots, repositories made and removed) every
// directory below the roots is one the kept walk watches at its present
// path or lies within what it reports unseen, and every .git is found or
// unseen: the fail-closed rule, for a kept walk brought up to date from
// its events. The budget is small so that the walk is cut and resumed.
func TestCacheKeepsEveryDirectoryWatchedOrUnseenThroughRandomChanges(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	base := t.TempDir()
	ws, other, outside := filepath.Join(base, "ws"), filepath.Join(base, "other"), filepath.Join(base, "outside")
	mkdirs(t, ws, other, outside)
	roots := []string{ws, other}
	c := &Cache{budget: 120}
	defer func() { _ = c.Close() }()
	// dirsUnder lists the directories below dir, not looking into a .git.
	dirsUnder := func(dir string) []string {
		var out []string
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d.IsDir() {
				out = append(out, p)
			}
			return nil
		})
		return out
	}
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	for step := range 300 {
		all := append(dirsUnder(ws), dirsUnder(other)...)
		dir := pick(all)
		name := fmt.Sprint("d", rng.IntN(8))
		var op string
		switch rng.IntN(8) {
		case 0, 1:
			op = "mkdir " + filepath.Join(dir, name, "n")
			_ = os.MkdirAll(filepath.Join(dir, name, "n"), 0o755)
		case 2:
			op = "fill " + filepath.Join(dir, name)
			for i := range 10 {
				_ = os.MkdirAll(filepath.Join(dir, name, fmt.Sprint(i)), 0o755)
			}
		case 3:
			if slices.Contains(roots, dir) {
				continue
			}
			op = "rm -r " + dir
			_ = os.RemoveAll(dir)
		case 4:
			to := filepath.Join(pick(all), name)
			if slices.Contains(roots, dir) || events.Within(to, dir) {
				continue
			}
			op = "mv " + dir + " " + to
			_ = os.Rename(dir, to)
		case 5:
			from := filepath.Join(outside, fmt.Sprint("o", step))
			mkdirs(t, filepath.Join(from, "p", ".git"), filepath.Join(from, "q"))
			op = "mv in " + filepath.Join(dir, name)
			_ = os.Rename(from, filepath.Join(dir, name))
		case 6:
			if slices.Contains(roots, dir) {
				continue
			}
			op = "mv out " + dir
			_ = os.Rename(dir, filepath.Join(outside, fmt.Sprint("x", step)))
		case 7:
			op = "git " + dir
			if rng.IntN(2) == 0 {
				_ = os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
			} else {
				_ = os.RemoveAll(filepath.Join(dir, ".git"))
			}
		}
		if rng.IntN(3) > 0 {
			continue // several changes between two calls
		}
		got := Find(roots, ws, c)
		watched := map[string]bool{}
		c.mu.Lock()
		for _, d := range c.dirs {
			watched[d] = true
		}
		c.mu.Unlock()
		for _, d := range append(dirsUnder(ws), dirsUnder(other)...) {
			if !watched[d] && !events.WithinAny(d, got.Unseen) {
				t.Fatalf("step %d (%s): %s is neither watched at its path nor unseen (unseen %v)", step, op, d, got.Unseen)
			}
			if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil && !slices.Contains(got.Found, filepath.Join(d, ".git")) && !events.WithinAny(d, got.Unseen) {
				t.Fatalf("step %d (%s): %s/.git is neither found nor unseen", step, op, d)
			}
		}
		if got.Complete != (len(got.Unseen) == 0) {
			t.Fatalf("step %d: complete %t with unseen %v", step, got.Complete, got.Unseen)
		}
	}
	t.Logf("walks %d", c.Walks())
}

// TestLastRewalkSaysWhy: a whole walk done again names its cause, so that
// a test on a shared machine can tell the host's reasons from the cache's.
func TestLastRewalkSaysWhy(t *testing.T) {
	ws, other := t.TempDir(), t.TempDir()
	c := &Cache{}
	defer func() { _ = c.Close() }()
	Find([]string{ws}, ws, c)
	if why := c.LastRewalk(); why != "" {
		t.Fatalf("after the first walk: %q, want nothing", why)
	}
	Find([]string{ws}, ws, c)
	if c.Walks() != 1 || c.LastRewalk() != "" {
		t.Fatalf("an unchanged kept walk: walks %d, why %q", c.Walks(), c.LastRewalk())
	}
	Find([]string{ws, other}, ws, c)
	if why := c.LastRewalk(); c.Walks() != 2 || why != "other roots" {
		t.Errorf("other roots: walks %d, why %q", c.Walks(), why)
	}
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	mkdirs(t, other)
	Find([]string{ws, other}, ws, c)
	// The new directory may have the old one's inode number: the removal
	// itself must make the walk start again, or a repository made in the
	// new one (which no watch covers) would go unseen.
	if why := c.LastRewalk(); c.Walks() != 3 || (why != "a root was removed" && why != "a root was replaced or is missing") {
		t.Errorf("a replaced root: walks %d, why %q", c.Walks(), why)
	}
	mkdirs(t, filepath.Join(other, "repo", ".git"))
	if got := Find([]string{ws, other}, ws, c); !slices.Contains(got.Found, filepath.Join(other, "repo", ".git")) {
		t.Errorf("a repository made in the replaced root is not found: %+v", got)
	}
}
