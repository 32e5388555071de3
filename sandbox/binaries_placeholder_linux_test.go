package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Another run's placeholder for an absent lean helper must be held by this
// run like any protected path, not bound as a binary: the other run removes
// it when it ends, and a call that had listed it as a binary then failed
// with "making docket's binary ... read-only: open_tree: no such file".
func TestAnotherRunsLeanHelperPlaceholderIsHeldNotBound(t *testing.T) {
	w := t.TempDir()
	docket := filepath.Join(w, "docket")
	lean := filepath.Join(w, HelperName)
	if err := os.WriteFile(docket, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	records := filepath.Join(t.TempDir(), "placeholders")
	// Another run made it (and recorded it, as docket does).
	other, ok, err := holdAt(lean, []string{w}, records, nil, 0)
	if err != nil || !ok || other.f == nil {
		t.Fatalf("the other run's hold: %v %v %+v", ok, err, other)
	}
	present, absent := docketBinaries(docket, docket, []string{w})
	if !slices.Equal(present, []string{docket}) || !slices.Equal(absent, []string{lean}) {
		t.Fatalf("got present %v absent %v, want [%s] and [%s]", present, absent, docket, lean)
	}

	// Held, the placeholder outlives the run that made it; the last
	// holder removes it, knowing from the record that docket made it.
	keep, release, err := holdProtected(absent, []string{w}, records)
	if err != nil || !slices.Equal(keep, []string{lean}) {
		t.Fatalf("holdProtected: %v %v", keep, err)
	}
	releasePlaceholder(other)
	if fi, err := os.Stat(lean); err != nil || !fi.IsDir() {
		t.Fatalf("the placeholder went away while this run held it: %v", err)
	}
	release()
	if _, err := os.Stat(lean); !os.IsNotExist(err) {
		t.Fatalf("the last holder did not remove the placeholder: %v", err)
	}
}
