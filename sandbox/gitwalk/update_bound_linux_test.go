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
