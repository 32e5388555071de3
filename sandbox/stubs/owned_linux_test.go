package stubs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAStubIsRemovedOnlyByWhoKnowsDocketMadeIt: an empty 0555
// directory found at a protected name is not docket's unless docket made
// it: the user's stays after every run, with or without records, kept or
// per call; one another run made, recorded or marked, is removed by the
// last run out.
func TestAStubIsRemovedOnlyByWhoKnowsDocketMadeIt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		records bool
		kept    bool // through a session's Keeper
		theirs  bool // another docket run made and recorded it, and left first
		want    bool // whether the directory is there afterwards
		marked  bool // want is whether the file system keeps no user attributes (no mark)
	}{
		{name: "the user's, per call, with records", records: true, want: true},
		{name: "the user's, per call, without records", want: true},
		{name: "the user's, kept by a session", records: true, kept: true, want: true},
		{name: "another run's, recorded: the last one out removes it", records: true, theirs: true, want: false},
		// Not a guess: the stub carries docket's mark naming it (where the
		// file system keeps user attributes; else it is left).
		{name: "another run's, no records: removed by its mark", theirs: true, marked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			if tc.marked {
				tc.want = errors.Is(unix.Setxattr(ws, markAttr+".probe", []byte("1"), 0), unix.ENOTSUP)
			}
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
