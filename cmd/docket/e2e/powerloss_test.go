package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// The layer itself: a write that no fsync followed is gone after the cut,
// a synced file under a synced directory survives whole.
func TestPowerDiskDropsWhatWasNotSynced(t *testing.T) {
	t.Parallel()
	d := mountPowerDisk(t)
	if err := os.WriteFile(filepath.Join(d.mount, "unsynced"), []byte("lost"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(d.mount, "synced"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("kept"); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(" and this was not synced"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	dir, err := os.Open(d.mount)
	if err != nil {
		t.Fatal(err)
	}
	if err := dir.Sync(); err != nil {
		t.Fatal(err)
	}
	dir.Close()
	if err := os.WriteFile(filepath.Join(d.mount, "late"), []byte("after the directory sync"), 0o600); err != nil {
		t.Fatal(err)
	}
	img, lost := d.cut(t)
	if b, err := os.ReadFile(filepath.Join(img, "synced")); err != nil || string(b) != "kept" {
		t.Fatalf("synced file after the cut: %q, %v; want what its fsync saw", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(img, "unsynced")); err != nil || len(b) != 0 {
		t.Fatalf("a never-synced file in a synced directory: %q, %v; want it empty", b, err)
	}
	if _, err := os.Stat(filepath.Join(img, "late")); !os.IsNotExist(err) || strings.Join(lost, ",") != "late" {
		t.Fatalf("an entry made after the directory's fsync survived (%v), lost %v", err, lost)
	}
}

// A session on a disk that loses power after the command started: the
// journal, with its write-ahead record, must be on what the disk kept,
// and resume from that disk must not run the command again.
func TestPowerCutAfterTheWriteAheadKeepsTheJournal(t *testing.T) {
	t.Parallel()
	d := mountPowerDisk(t)
	c := newCrashRun(t)
	c.home = filepath.Join(d.mount, "home")
	first := c.exec(t, "while_running@1")
	if !first.signaled {
		t.Fatalf("exec was not killed while a command ran (exit %d):\n%s", first.code, first.stderr)
	}
	time.Sleep(500 * time.Millisecond) // let the orphaned command finish its write
	live := readJournal(t, c.journalPath(t))
	img, lost := d.cut(t)
	imgHome := filepath.Join(img, "home")
	sf, err := journal.Find(imgHome, "last")
	if err != nil {
		t.Fatalf("the power cut lost the journal (lost entries %v): %v", lost, err)
	}
	var kept []events.Record
	if err := journal.Scan(sf.Path, 1, func(r events.Record) error { kept = append(kept, r); return nil }); err != nil {
		t.Fatalf("the journal the power cut left: %v", err)
	}
	// Everything in the file was acknowledged by a commit (an fsync)
	// before the command started: the cut may not lose any of it.
	checkPrefix(t, live, kept)
	if len(kept) != len(live) {
		t.Fatalf("the power cut kept %d of %d committed records", len(kept), len(live))
	}
	b, _ := os.ReadFile(filepath.Join(c.ws, "runs.log"))
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); len(f) == 2 && !hasStart(kept, f[0], f[1] == "linux") {
			t.Fatalf("%q ran, but its write-ahead record did not survive the power cut", line)
		}
	}
	c.home = imgHome
	r := c.resume(t)
	if r.code != 0 {
		t.Fatalf("resume from the disk the power cut left exited %d:\n%s", r.code, r.stderr)
	}
	after := readJournal(t, sf.Path)
	checkNoRepeats(t, c.ws, after)
	checkEveryCallDone(t, after)
}
