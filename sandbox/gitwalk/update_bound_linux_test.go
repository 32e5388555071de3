package gitwalk

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/docket-engine/docket/events"
)

// TestKeptWalkUpdateHasOneBudget: many directories made between two
// calls do not each get a walk with a full budget and a deadline of its
// own (which made one call's start run far past MaxTime): one update
// reads at most the kept walk's budget, whatever the number of new
// directories, and leaves the rest unseen. A repository made in the
// directories it did not reach is never left writable: its .git is found,
// or it lies below what the call binds read-only.
func TestKeptWalkUpdateHasOneBudget(t *testing.T) {
	const budget, made = 60, 400
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	mkdirs(t, filepath.Join(ws, "a"))
	roots := []string{ws}
	c := &Cache{budget: budget}
	t.Cleanup(func() { _ = c.Close() })
	if first := Find(roots, ws, c); !first.Complete {
		t.Fatalf("first walk = %+v, want it complete", first)
	}
	var repos []string
	for i := range made {
		d := filepath.Join(ws, fmt.Sprintf("d%03d", i))
		mkdirs(t, d)
		writeFile(t, filepath.Join(d, "f"), "x")
		if i == 0 || i == made-1 {
			mkdirs(t, filepath.Join(d, "repo", ".git"))
			repos = append(repos, filepath.Join(d, "repo", ".git"))
		}
	}
	got := Find(roots, ws, c)
	if c.walks != 1 {
		t.Fatalf("the kept walk was walked again (%q): the update this test bounds never ran", c.why)
	}
	w := c.lastUpdate
	// Each walk reads at least "." and ".." before it can stop; one more
	// directory's entries may be read past the budget.
	if w.Entries > budget+8 || w.Walks > budget/2+1 || w.Walks+w.Skipped < made {
		t.Fatalf("one update walked %d times over %d entries and skipped %d of %d new directories; want at most %d entries",
			w.Walks, w.Entries, w.Skipped, made, budget+8)
	}
	if got.Complete {
		t.Error("an update that left directories unseen says the walk is complete")
	}
	for _, g := range repos {
		if !slices.Contains(got.Found, g) && !events.WithinAny(g, got.Unseen) {
			t.Errorf("%s is neither found nor below an unseen directory: it would be writable\nfound %v\nunseen %v", g, got.Found, got.Unseen)
		}
	}
	// The next call, with nothing changed, keeps them so.
	again := Find(roots, ws, c)
	for _, g := range repos {
		if !slices.Contains(again.Found, g) && !events.WithinAny(g, again.Unseen) {
			t.Errorf("the next call leaves %s writable", g)
		}
	}
}

// TestKeptWalkUnseenListStaysBounded: a command that makes many
// directories before each call, each straight in a watched directory
// (one event, one skipped directory each), does not grow the kept walk's
// list of what it did not look into without end: every update goes over
// that list (and the next call's coarsening sorts it), so a list grown
// call after call would stretch each start past the walk's bounds. Past
// twice what a fresh walk leaves unseen (about its budget at most, and
// one read of a directory's entries past it), or twice the budget, the
// kept walk is walked afresh, and what the call binds still covers every
// repository.
func TestKeptWalkUnseenListStaysBounded(t *testing.T) {
	const budget, perCall, calls = 20, 30, 10
	ws := filepath.Join(t.TempDir(), "ws")
	mkdirs(t, filepath.Join(ws, "a"))
	roots := []string{ws}
	c := &Cache{budget: budget}
	t.Cleanup(func() { _ = c.Close() })
	if first := Find(roots, ws, c); !first.Complete {
		t.Fatalf("first walk = %+v, want it complete", first)
	}
	for call := range calls {
		var repo string
		for i := range perCall {
			d := filepath.Join(ws, fmt.Sprintf("c%d-d%03d", call, i))
			mkdirs(t, d)
			if i == perCall-1 {
				repo = filepath.Join(d, "repo", ".git")
				mkdirs(t, repo)
			}
		}
		got := Find(roots, ws, c)
		// A fresh walk (this call's, when the list was past its bound)
		// sets walkUnseen; an update leaves it.
		bound := 2*max(c.walkUnseen, budget) + perCall
		if n := len(c.unseen); n > bound {
			t.Fatalf("after call %d the kept walk holds %d unseen directories, more than %d (twice what the last fresh walk left, %d, or its budget %d, and one call's new ones; walks %d, last rewalk %q)",
				call, n, bound, c.walkUnseen, budget, c.walks, c.why)
		}
		if !slices.Contains(got.Found, repo) && !events.WithinAny(repo, got.Unseen) {
			t.Fatalf("call %d leaves %s writable\nfound %v\nunseen %v", call, repo, got.Found, got.Unseen)
		}
	}
}
