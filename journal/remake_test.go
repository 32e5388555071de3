package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
)

// Remake makes afresh only what a crash inside Create leaves (nothing
// committed, one name, this user's, nobody holding it), and leaves every
// other file as it found it with a reason.
func TestRemakeTakesOverOnlyWhatACrashedCreateLeaves(t *testing.T) {
	boltFile := func(t *testing.T, path string, fill func(*bolt.Tx) error) {
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		if fill != nil {
			err = db.Update(fill)
		}
		if err := errors.Join(err, db.Close()); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		// make leaves the file at path (named for id); it may return a
		// func the test runs at the end, to release what it holds.
		make    func(t *testing.T, dir, path, id string) func()
		renamed string // the id Remake is given when not the file's
		refusal string // "" when Remake must make the journal
	}{
		{name: "an empty file", make: func(t *testing.T, _, path, _ string) func() {
			put(t, path, nil)
			return nil
		}},
		{name: "zeros (the file grew, its pages never reached the disk)", make: func(t *testing.T, _, path, _ string) func() {
			put(t, path, make([]byte, 16384))
			return nil
		}},
		{name: "bbolt's empty database (killed before Docket's buckets)", make: func(t *testing.T, _, path, _ string) func() {
			boltFile(t, path, nil)
			return nil
		}},
		{name: "a file of something else (no bbolt meta page, not zeros)", make: func(t *testing.T, _, path, _ string) func() {
			put(t, path, append(make([]byte, 8192), "notes kept here"...))
			return nil
		}, refusal: "holds data"},
		{name: "zeros past what a crashed create can leave", make: func(t *testing.T, _, path, _ string) func() {
			put(t, path, make([]byte, 1<<20+1))
			return nil
		}, refusal: "holds data"},
		{name: "a bbolt database with a bucket", make: func(t *testing.T, _, path, _ string) func() {
			boltFile(t, path, func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("mine")); return err })
			return nil
		}, refusal: "holds data"},
		{name: "a journal with records", make: func(t *testing.T, dir, path, id string) func() {
			j, err := Create(dir, id, started())
			if err != nil {
				t.Fatal(err)
			}
			appendSeq(t, j)
			if err := j.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			return nil
		}, refusal: "holds data"},
		{name: "a symbolic link to an empty file", make: func(t *testing.T, dir, path, _ string) func() {
			target := filepath.Join(dir, "target")
			put(t, target, nil)
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			return nil
		}, refusal: "symbolic link"},
		{name: "an empty file with a second name", make: func(t *testing.T, dir, path, _ string) func() {
			put(t, path, nil)
			if err := os.Link(path, filepath.Join(dir, "other")); err != nil {
				t.Fatal(err)
			}
			return nil
		}, refusal: "2 hard links"},
		{name: "a directory", make: func(t *testing.T, _, path, _ string) func() {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
			return nil
		}, refusal: "not a regular file"},
		{name: "another session's name", renamed: uuid.Must(uuid.NewV7()).String(), make: func(t *testing.T, _, path, _ string) func() {
			put(t, path, nil)
			return nil
		}, refusal: "its name says session"},
		{name: "an empty file another process holds", make: func(t *testing.T, _, path, _ string) func() {
			put(t, path, nil)
			f, err := lockFile(path, false)
			if err != nil {
				t.Fatal(err)
			}
			return func() { _ = f.Close() }
		}, refusal: "in use"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			id := uuid.Must(uuid.NewV7()).String()
			path := SessionPath(home, id, started())
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if done := tt.make(t, home, path, id); done != nil {
				defer done()
			}
			before, _ := os.ReadFile(path)
			asked := id
			if tt.renamed != "" {
				asked = tt.renamed
			}
			j, err := Remake(path, asked)
			if tt.refusal != "" {
				if err == nil {
					_ = j.Close()
					t.Fatalf("Remake took over %s", tt.name)
				}
				if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.refusal) {
					t.Errorf("Remake's error %q does not name the file and say %q", err, tt.refusal)
				}
				if after, _ := os.ReadFile(path); string(after) != string(before) {
					t.Errorf("Remake changed the file it refused (%d bytes before, %d after)", len(before), len(after))
				}
				return
			}
			if err != nil {
				t.Fatalf("Remake: %v", err)
			}
			if j.SessionID() != id {
				t.Errorf("remade journal's session id %q, want %q", j.SessionID(), id)
			}
			appendSeq(t, j)
			if err := errors.Join(j.Commit(), j.Close()); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path)
			if err != nil {
				t.Fatalf("the remade journal does not open: %v", err)
			}
			defer r.Close()
			recs, err := r.All()
			if err != nil || len(recs) != 1 {
				t.Errorf("the remade journal holds %d records (%v), want the one appended", len(recs), err)
			}
		})
	}
}

// put writes b to path.
func put(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
