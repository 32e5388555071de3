package gitwalk

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
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
	got := Find([]string{ws, tmp}, ws, nil)
	wantHeld := []string{
		filepath.Join(repo, ".git"),        // the repository around the workspace
		filepath.Join(repo, "pkg", ".git"), // a writable directory above the workspace: a stub
	}
	wantTargets := []string{filepath.Join(ws, "mod", "gitdir")} // what a found gitdir file names
	wantFound := []string{
		filepath.Join(ws, "mod", ".git"), // a gitdir file
		filepath.Join(ws, "vendor", "lib", ".git"),
	}
	if !got.Complete || !slices.Equal(got.Held, wantHeld) || !slices.Equal(got.Found, wantFound) || !slices.Equal(got.Targets, wantTargets) {
		t.Errorf("Find = %+v\nwant held %v, found %v, targets %v", got, wantHeld, wantFound, wantTargets)
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
		_, complete := walk(tc.order, []string{big, ws}, func(p string, _ bool) { found = append(found, p) }, 20, time.Now().Add(time.Minute))
		if complete || !slices.Equal(found, tc.wantFound) {
			t.Errorf("%s: found %v (complete %t), want %v and a partial walk", tc.name, found, complete, tc.wantFound)
		}
	}
}

// TestGitWalkLeavesEveryDirectoryItDidNotOpenUnseen: whatever bound stops
// the walk, each directory below the roots is either one it opened (and
// watched) or lies within a directory it reports unseen.
func TestGitWalkLeavesEveryDirectoryItDidNotOpenUnseen(t *testing.T) {
	base := t.TempDir()
	ws, other := filepath.Join(base, "ws"), filepath.Join(base, "other")
	var all []string
	for i := range 6 {
		for j := range 5 {
			all = append(all, filepath.Join(ws, fmt.Sprint(i), fmt.Sprint(j)), filepath.Join(other, fmt.Sprint(i), fmt.Sprint(j), "k"))
		}
	}
	mkdirs(t, all...)
	for _, budget := range []int{0, 5, 20, 60, 200, 100000} {
		var opened []string
		unseen, complete := walkWatched([]string{ws, other}, []string{ws, other}, func(string, bool) {},
			func(dir string, _ int) func(int) { opened = append(opened, dir); return nil }, budget, time.Now().Add(time.Minute))
		if complete != (len(unseen) == 0) {
			t.Errorf("budget %d: complete %t with unseen %v", budget, complete, unseen)
		}
		err := filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() || p == base {
				return err
			}
			if !slices.Contains(opened, p) && !events.WithinAny(p, unseen) {
				t.Errorf("budget %d: %s was neither read nor left unseen (unseen %v)", budget, p, unseen)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestCoarsenUnseenBoundsTheBindsWithoutLosingAnyDirectory(t *testing.T) {
	roots := []string{"/r", "/s"}
	for _, tc := range []struct {
		name   string
		unseen []string
		limit  int
		want   []string
	}{
		{"below the bound: as they are, without those inside another", []string{"/r/a/b", "/r/a", "/r/c"}, 4, []string{"/r/a", "/r/c"}},
		{"a sibling whose name extends another's is not inside it", []string{"/r/a", "/r/a-b", "/r/a/b"}, 4, []string{"/r/a", "/r/a-b"}},
		{"over the bound: the directory holding two takes their place", []string{"/r/a/b/c", "/r/a/b/d", "/r/e"}, 2, []string{"/r/a/b", "/r/e"}},
		{"the crowded directory first, a lone one elsewhere stays", []string{"/r/nm/1", "/r/nm/2", "/r/nm/3", "/r/src/x"}, 2, []string{"/r/nm", "/r/src/x"}},
		{"one each: the deepest lifted until they meet", []string{"/r/a/b/c", "/r/d/e", "/r/f"}, 2, []string{"/r"}},
		{"a root at the deepest level does not stop the others", []string{"/s/t/u", "/r/a", "/r/b", "/r/c"}, 2, []string{"/r", "/s/t/u"}},
		{"until only the roots are left", []string{"/r/a", "/r/b", "/s/c", "/s/d"}, 1, []string{"/r", "/s"}},
		{"a root unseen covers everything below it", []string{"/s", "/s/x", "/r/y"}, 4, []string{"/r/y", "/s"}},
	} {
		if got := coarsenUnseen(tc.unseen, roots, tc.limit); !slices.Equal(got, tc.want) {
			t.Errorf("%s: coarsenUnseen(%v, %d) = %v, want %v", tc.name, tc.unseen, tc.limit, got, tc.want)
		}
	}
}

// FuzzCoarsenUnseen: whatever the unseen list, every directory in it lies
// within one the result keeps, and the result is within the bound unless
// only roots are left.
func FuzzCoarsenUnseen(f *testing.F) {
	f.Add("a/b/c a/b/d e", uint8(2))
	f.Add("nm/1 nm/2 nm/3 src/x", uint8(1))
	f.Fuzz(func(t *testing.T, list string, limit uint8) {
		roots := []string{"/r", "/r/in", "/s"}
		var unseen []string
		for i, w := range strings.Fields(list) {
			p := filepath.Join(roots[i%len(roots)], w)
			if !events.WithinAny(p, roots) {
				continue
			}
			unseen = append(unseen, p)
		}
		got := coarsenUnseen(unseen, roots, int(limit))
		for _, u := range unseen {
			if !events.WithinAny(u, got) {
				t.Fatalf("%s is within nothing coarsenUnseen(%v, %d) kept: %v", u, unseen, limit, got)
			}
		}
		if len(got) > int(limit) {
			for _, p := range got {
				if !slices.Contains(roots, p) {
					t.Fatalf("coarsenUnseen(%v, %d) = %v: over the bound with %s, not a root", unseen, limit, got, p)
				}
			}
		}
	})
}
