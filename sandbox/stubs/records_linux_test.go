package stubs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRemoveLeftStubsOnlyRemovesWhatDocketMade makes real
// stubs as a run does, leaves them as a killed docket would (the
// lock dropped, the directory kept), changes each the way a user, a
// command or a live session might, and checks that a later start removes
// exactly the untouched, unheld ones it recorded.
func TestRemoveLeftStubsOnlyRemovesWhatDocketMade(t *testing.T) {
	cases := []struct {
		name string
		// after changes the left stub p; it may return a hold to
		// keep until the cleanup ran.
		after       func(t *testing.T, p string) (keep func())
		wantRemoved bool
		wantRecord  bool // the record survives the cleanup
	}{
		{name: "left by a killed docket: removed", wantRemoved: true},
		{name: "held by a live session: kept, and so is its record", wantRecord: true,
			after: func(t *testing.T, p string) func() {
				h, ok, err := holdAt(p, []string{filepath.Dir(p)}, "", nil, 0)
				if err != nil || !ok {
					t.Fatalf("hold: %v %v", ok, err)
				}
				return func() { _ = h.f.Close() }
			}},
		{name: "filled by the user: kept", after: func(t *testing.T, p string) func() {
			must(t, os.Chmod(p, 0o755))
			must(t, os.WriteFile(filepath.Join(p, "mine"), []byte("x"), 0o644))
			must(t, os.Chmod(p, 0o555))
			return nil
		}},
		{name: "replaced by another empty 0555 directory: kept", after: func(t *testing.T, p string) func() {
			must(t, os.Remove(p))
			must(t, os.Mkdir(p, 0o555))
			return nil
		}},
		{name: "made writable by the user: kept", after: func(t *testing.T, p string) func() {
			must(t, os.Chmod(p, 0o755))
			return nil
		}},
		{name: "swapped for a symlink: kept", after: func(t *testing.T, p string) func() {
			must(t, os.Remove(p))
			must(t, os.Symlink(t.TempDir(), p))
			return nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws, records := t.TempDir(), filepath.Join(t.TempDir(), "stubs")
			t.Cleanup(func() {
				_ = filepath.Walk(ws, func(p string, fi os.FileInfo, err error) error { _ = os.Chmod(p, 0o755); return nil })
			})
			p := filepath.Join(ws, ".git")
			h, ok, err := holdAt(p, []string{ws}, records, nil, 0)
			if err != nil || !ok || h.f == nil {
				t.Fatalf("hold: %v %v", ok, err)
			}
			_ = h.f.Close() // the kill: the lock goes, the directory stays
			if tc.after != nil {
				if keep := tc.after(t, p); keep != nil {
					defer keep()
				}
			}
			// A look-alike docket never made, next to it.
			forged := filepath.Join(ws, "forged")
			must(t, os.Mkdir(forged, 0o555))

			removed, err := RemoveLeft(records)
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Lstat(p)
			if gone := os.IsNotExist(statErr); gone != tc.wantRemoved || (len(removed) == 1) != tc.wantRemoved {
				t.Fatalf("removed %v (stat: %v), want removed=%v", removed, statErr, tc.wantRemoved)
			}
			if _, err := os.Lstat(forged); err != nil {
				t.Fatalf("a directory docket never recorded was removed: %v", err)
			}
			_, recErr := os.Stat(recordFile(records, p))
			if (recErr == nil) != tc.wantRecord {
				t.Fatalf("record exists=%v, want %v", recErr == nil, tc.wantRecord)
			}
		})
	}
}

// TestRemoveLeftStubsCleansEveryRootButWhatARunHolds: a start
// removes what a killed run left in any root (another workspace, an
// --add-dir root), and leaves what a live run holds.
func TestRemoveLeftStubsCleansEveryRootButWhatARunHolds(t *testing.T) {
	left, held, records := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "stubs")
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(held, ".git"), 0o755) })
	h, ok, err := holdAt(filepath.Join(left, ".git"), []string{left}, records, nil, 0)
	if err != nil || !ok {
		t.Fatalf("hold: %v %v", ok, err)
	}
	_ = h.f.Close() // the run that held it is gone
	live, ok, err := holdAt(filepath.Join(held, ".git"), []string{held}, records, nil, 0)
	if err != nil || !ok {
		t.Fatalf("hold: %v %v", ok, err)
	}
	defer func() { _ = live.f.Close() }()
	removed, err := RemoveLeft(records)
	if err != nil || !slices.Equal(removed, []string{filepath.Join(left, ".git")}) {
		t.Fatalf("removed %v, %v; want only %s", removed, err, filepath.Join(left, ".git"))
	}
	if !isDir(filepath.Join(held, ".git")) {
		t.Error("a stub a live run holds was removed")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// recordFiles lists the record files under records.
func recordFiles(t *testing.T, records string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(records, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A call records the stubs it makes in one file, and drops it once
// it removed them all.
func TestACallRecordsItsStubsInOneFile(t *testing.T) {
	ws, records := t.TempDir(), filepath.Join(t.TempDir(), "stubs")
	paths := []string{filepath.Join(ws, ".git"), filepath.Join(ws, ".docket"), filepath.Join(ws, ".agents")}
	keep, release, err := Hold(paths, []string{ws}, records)
	if err != nil || len(keep) != 3 {
		t.Fatalf("hold: %v %v", keep, err)
	}
	files := recordFiles(t, records)
	if len(files) != 1 {
		t.Fatalf("record files %v, want one for the call", files)
	}
	recs, batch, err := readRecords(files[0])
	if err != nil || !batch || len(recs) != 3 {
		t.Fatalf("the call's record: %+v batch=%v %v", recs, batch, err)
	}
	for i, rec := range recs {
		if rec.Path != paths[i] || rec.Ino == 0 {
			t.Errorf("record %d = %+v, want %s with its inode", i, rec, paths[i])
		}
	}
	release()
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s outlived the call", p)
		}
	}
	if files := recordFiles(t, records); len(files) != 0 {
		t.Errorf("the call's record outlived its stubs: %v", files)
	}
}

// What a killed call left, recorded in its one file, is removed by the
// next start, in whichever workspace; the file goes only once nothing it
// names is held.
func TestRemoveLeftStubsReadsACallsRecord(t *testing.T) {
	for _, tc := range []struct {
		name        string
		held, other bool
		gone        bool // the other workspace's stub was removed by another run
		wantRemoved int
		wantRecord  bool
	}{
		{name: "all left: all removed, the record dropped", wantRemoved: 2},
		{name: "one still held: the other removed, the record kept", held: true, wantRemoved: 1, wantRecord: true},
		{name: "one in another workspace: both removed, the record dropped", other: true, wantRemoved: 2},
		{name: "one in another workspace, gone since: the record dropped", other: true, gone: true, wantRemoved: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, elsewhere, records := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "stubs")
			second := filepath.Join(ws, ".docket")
			if tc.other {
				second = filepath.Join(elsewhere, ".docket")
			}
			var made []string
			for _, p := range []string{filepath.Join(ws, ".git"), second} {
				h, ok, err := holdAt(p, []string{filepath.Dir(p)}, records, &made, 0)
				if err != nil || !ok {
					t.Fatalf("hold %s: %v %v", p, ok, err)
				}
				if tc.held && p == second {
					defer func() { _ = h.f.Close() }() // a live session keeps its lock
					continue
				}
				_ = h.f.Close() // the kill: the lock goes, the directory stays
			}
			if _, _, err := recordCall(records, made); err != nil {
				t.Fatal(err)
			}
			if tc.gone {
				must(t, os.Remove(second))
			}
			removed, err := RemoveLeft(records)
			if err != nil || len(removed) != tc.wantRemoved {
				t.Fatalf("removed %v, %v; want %d", removed, err, tc.wantRemoved)
			}
			if got := len(recordFiles(t, records)) == 1; got != tc.wantRecord {
				t.Errorf("record kept = %v, want %v", got, tc.wantRecord)
			}
		})
	}
}

// FuzzReadRecords: a record file of any content is an error or records
// with absolute paths, never a panic.
func FuzzReadRecords(f *testing.F) {
	f.Add([]byte(`{"path":"/w/.git","dev":1,"ino":2,"birth":3}`))
	f.Add([]byte(`[{"path":"/w/.git","dev":1,"ino":2},{"path":"/w/.docket","dev":1,"ino":3}]`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"path":"rel"}]`))
	f.Add([]byte(` [null]`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(dir, "r.json")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		recs, _, err := readRecords(file)
		if err != nil {
			return
		}
		if len(recs) == 0 {
			t.Fatalf("no error and no record for %q", data)
		}
		for _, r := range recs {
			if !filepath.IsAbs(r.Path) {
				t.Fatalf("relative path %q accepted from %q", r.Path, data)
			}
		}
	})
}

// A call's record of a stub another run was still holding stays
// when the call ends; once that run removed it, a start in any workspace
// drops the record, so records of shared roots (/tmp) do not pile up.
func TestARecordOfAStubAnotherRunRemovedIsDropped(t *testing.T) {
	ws, records := t.TempDir(), filepath.Join(t.TempDir(), "stubs")
	p := filepath.Join(ws, ".git")
	_, releaseA, err := Hold([]string{p}, []string{ws}, records)
	if err != nil {
		t.Fatal(err)
	}
	_, releaseB, err := Hold([]string{p}, []string{ws}, records)
	if err != nil {
		t.Fatal(err)
	}
	releaseA() // B still holds it: it stays, and so does A's record
	if !isDir(p) || len(recordFiles(t, records)) != 1 {
		t.Fatalf("after the first release: stub %v, records %v", isDir(p), recordFiles(t, records))
	}
	releaseB() // the last holder removes it; it never recorded it
	if isDir(p) {
		t.Fatal("the last holder left the stub")
	}
	if removed, err := RemoveLeft(records); err != nil || len(removed) != 0 {
		t.Fatalf("a start elsewhere: removed %v, %v", removed, err)
	}
	if files := recordFiles(t, records); len(files) != 0 {
		t.Errorf("a record of a stub long gone was kept: %v", files)
	}
}

func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}
