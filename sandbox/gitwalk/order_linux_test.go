package gitwalk

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestALargeSharedRootDoesNotSpendANamedRootsBudget: a shallow root that
// holds more than the walk's budget (a /tmp every process on the host
// fills) is walked after a deeper root the user named (an --add-dir), so
// the named root is seen, its nested repository protected, and nothing of
// it is left read-only. Walked in the order given, the large root spent
// the budget and the named root was read-only whole.
func TestALargeSharedRootDoesNotSpendANamedRootsBudget(t *testing.T) {
	base := t.TempDir()
	shared := filepath.Join(base, "shared")
	for i := 0; i < MaxEntries+50; i++ {
		mkdirs(t, filepath.Join(shared, fmt.Sprintf("d%05d", i)))
	}
	named := filepath.Join(base, "home", "u", "data")
	mkdirs(t, filepath.Join(named, "nested", ".git"))
	if err := os.WriteFile(filepath.Join(named, "nested", ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := Find([]string{shared, named}, base, nil)
	if set.Complete {
		t.Fatalf("the walk finished: the shared root does not exceed the budget")
	}
	for _, u := range set.Unseen {
		if u == named || filepath.Dir(u) == named {
			t.Errorf("the named root is left unseen (%s): %v", u, set.Unseen)
		}
	}
	if !slices.Contains(set.Found, filepath.Join(named, "nested", ".git")) {
		t.Errorf("the named root's nested repository was not found: %+v", set.Found)
	}
}
