package journal

import (
	"errors"
	"fmt"
	"github.com/docket-engine/docket/journal/internal/boltfile"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	bolt "go.etcd.io/bbolt"
)

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// foreignBolt makes a valid bbolt file with buckets of its own.
func foreignBolt(t *testing.T, fill func(tx *bolt.Tx) error) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "foreign.docket")
	db, err := bolt.Open(p, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(fill); err != nil {
		t.Fatal(err)
	}
	db.Close()
	return p
}

func TestNotJournals(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 3*boltfile.DefaultPageSize)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), random[:5000]...)
	dir := filepath.Join(t.TempDir(), "a-directory.docket")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		path   string
		reason string // in the error's text
	}{
		{"empty file", writeFile(t, "empty.docket", nil), "the file is empty"},
		{"directory", dir, "it is a directory"},
		{"random bytes", writeFile(t, "random.docket", random), "no docket records can be read"},
		{"png", writeFile(t, "picture.docket", png), "no docket records can be read"},
		{"short text", writeFile(t, "text.docket", []byte("hello\n")), "no docket records can be read"},
		{"bbolt without our buckets", foreignBolt(t, func(tx *bolt.Tx) error {
			b, err := tx.CreateBucket([]byte("foo"))
			if err != nil {
				return err
			}
			return b.Put([]byte("12345678"), []byte("not a record"))
		}), "without Docket's meta bucket"},
		{"bbolt with a foreign format marker", foreignBolt(t, func(tx *bolt.Tx) error {
			b, _ := tx.CreateBucket(bucketMeta)
			if _, err := tx.CreateBucket(bucketRecords); err != nil {
				return err
			}
			return b.Put(keyFormat, []byte("something-else/1"))
		}), `its format marker is "something-else/1"`},
		{"bbolt with meta but no records", foreignBolt(t, func(tx *bolt.Tx) error {
			b, _ := tx.CreateBucket(bucketMeta)
			return b.Put(keyFormat, []byte(formatPrefix+"1"))
		}), "it has no records bucket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, open := range []struct {
				name string
				fn   func(string) error
			}{
				{"Open", func(p string) error { _, err := Open(p); return err }},
				{"OpenReadOnly", func(p string) error { _, err := OpenReadOnly(p); return err }},
				{"Scan", func(p string) error {
					got, err := scanAll(p)
					if len(got) > 0 {
						t.Errorf("Scan yielded %d records from a foreign file", len(got))
					}
					return err
				}},
			} {
				err := open.fn(tt.path)
				var nj *NotJournalError
				if !errors.As(err, &nj) || !errors.Is(err, ErrNotJournal) {
					t.Fatalf("%s: %v (%T), want *NotJournalError", open.name, err, err)
				}
				want := tt.path + " is not a docket journal: "
				if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tt.reason) {
					t.Fatalf("%s: %q, want %q ... %q", open.name, err, want, tt.reason)
				}
			}
		})
	}
	missing := filepath.Join(t.TempDir(), "missing.docket")
	for _, err := range []error{
		func() error { _, err := Open(missing); return err }(),
		func() error { _, err := scanAll(missing); return err }(),
	} {
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
			t.Errorf("missing file: %v, want a not-exist error naming it", err)
		}
	}
}

func TestNewerVersionJournal(t *testing.T) {
	t.Run("session_started", func(t *testing.T) {
		j := mustCreate(t, t.TempDir())
		if _, err := j.Append(atOf(1), "", events.SessionStarted{Version: events.FormatVersion + 1, SessionID: testID}); err != nil {
			t.Fatal(err)
		}
		appendSeq(t, j)
		j.Close()
		checkNewer(t, j.Path())
	})
	t.Run("format marker", func(t *testing.T) {
		p := foreignBolt(t, func(tx *bolt.Tx) error {
			b, _ := tx.CreateBucket(bucketMeta)
			if _, err := tx.CreateBucket(bucketRecords); err != nil {
				return err
			}
			return b.Put(keyFormat, []byte(fmt.Sprintf("%s%d", formatPrefix, events.FormatVersion+1)))
		})
		checkNewer(t, p)
	})
}

func checkNewer(t *testing.T, path string) {
	t.Helper()
	for name, err := range map[string]error{
		"Open":         func() error { _, err := Open(path); return err }(),
		"OpenReadOnly": func() error { _, err := OpenReadOnly(path); return err }(),
		"Scan":         func() error { _, err := scanAll(path); return err }(),
	} {
		var nv *events.NewerVersionError
		if !errors.As(err, &nv) || nv.Version != events.FormatVersion+1 {
			t.Fatalf("%s: %v, want *events.NewerVersionError", name, err)
		}
		if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "upgrade docket") {
			t.Fatalf("%s: %q does not name the file and what to do", name, msg)
		}
	}
}
