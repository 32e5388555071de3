package stubs

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAStubIsRemovedOnlyByWhoKnowsDocketMadeIt: an empty 0555
// directory found at a protected name is not docket's unless docket made
// it: the user's stays after every run, with or without records, kept or
// per call; one another run made and recorded is removed by the last run
// out.
func TestAStubIsRemovedOnlyByWhoKnowsDocketMadeIt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		records bool
		kept    bool // through a session's Keeper
		theirs  bool // another docket run made and recorded it, and left first
		want    bool // whether the directory is there afterwards
	}{
		{name: "the user's, per call, with records", records: true, want: true},
		{name: "the user's, per call, without records", want: true},
		{name: "the user's, kept by a session", records: true, kept: true, want: true},
		{name: "another run's, recorded: the last one out removes it", records: true, theirs: true, want: false},
		{name: "another run's, no records: left, never guessed", theirs: true, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			p := filepath.Join(ws, ".docket")
			t.Cleanup(func() { _ = os.Chmod(p, 0o755) })
			records := ""
			if tc.records {
				records = filepath.Join(t.TempDir(), "stubs")
			}
			var releaseMaker func()
			if tc.theirs {
				var err error
				if _, releaseMaker, err = Hold([]string{p}, []string{ws}, records); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Mkdir(p, Mode); err != nil {
				t.Fatal(err)
			}
			must(t, os.Chmod(p, Mode))
			if tc.kept {
				var ph Keeper
				if _, err := ph.Hold([]string{p}, []string{ws}, records); err != nil {
					t.Fatal(err)
				}
				must(t, ph.Close())
			} else {
				_, release, err := Hold([]string{p}, []string{ws}, records)
				if err != nil {
					t.Fatal(err)
				}
				if releaseMaker != nil {
					releaseMaker() // the maker leaves first: this run is the last one out
				}
				release()
			}
			if got := isDir(p); got != tc.want {
				t.Errorf("%s there afterwards: %t, want %t", p, got, tc.want)
			}
		})
	}
}
