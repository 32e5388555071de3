package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/docket-engine/docket/sandbox/stubs"
)

// Another run's stub for an absent lean helper must be held by this
// run like any protected path, not bound as a binary: the other run removes
// it when it ends, and a call that had listed it as a binary then failed
// with "making docket's binary ... read-only: open_tree: no such file".
func TestAnotherRunsLeanHelperStubIsHeldNotBound(t *testing.T) {
	w := t.TempDir()
	docket := filepath.Join(w, "docket")
	lean := filepath.Join(w, HelperName)
	if err := os.WriteFile(docket, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	records := filepath.Join(t.TempDir(), "stubs")
	// Another run made it (and recorded it, as docket does).
	var other stubs.Keeper
	if kept, err := other.Hold([]string{lean}, []string{w}, records); err != nil || !slices.Equal(kept, []string{lean}) {
		t.Fatalf("the other run's hold: %v %v", kept, err)
	}
	present, absent := docketBinaries(docket, docket, []string{w})
	if !slices.Equal(present, []string{docket}) || !slices.Equal(absent, []string{lean}) {
		t.Fatalf("got present %v absent %v, want [%s] and [%s]", present, absent, docket, lean)
	}

	// Held, the stub outlives the run that made it; the last
	// holder removes it, knowing from the record that docket made it.
	keep, release, err := stubs.Hold(absent, []string{w}, records)
	if err != nil || !slices.Equal(keep, []string{lean}) {
		t.Fatalf("stubs.Hold: %v %v", keep, err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(lean); err != nil || !fi.IsDir() {
		t.Fatalf("the stub went away while this run held it: %v", err)
	}
	release()
	if _, err := os.Stat(lean); !os.IsNotExist(err) {
		t.Fatalf("the last holder did not remove the stub: %v", err)
	}
}
