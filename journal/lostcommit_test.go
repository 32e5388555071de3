package journal

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/docket-engine/docket/journal/internal/boltfile"
	bolt "go.etcd.io/bbolt"
)

// newestMeta returns the meta page (0 or 1) that holds fx's last commit.
func newestMeta(t *testing.T, fx fixture) int {
	t.Helper()
	m0, ok0 := boltfile.ParseMeta(fx.bytes)
	m1, ok1 := boltfile.ParseMeta(fx.bytes[boltfile.DefaultPageSize:])
	if !ok0 || !ok1 {
		t.Fatal("fixture has an invalid meta page")
	}
	if m1.TxID > m0.TxID {
		return 1
	}
	return 0
}

// damageMeta flips one bit of meta page m's checksum: bbolt then ignores
// the page and, without a word, uses the other one.
func damageMeta(data []byte, m int) []byte {
	d := bytes.Clone(data)
	d[m*boltfile.DefaultPageSize+boltfile.MetaOffset+60] ^= 0x04
	return d
}

func TestDamagedNewestMetaIsReportedAndItsCommitRecovered(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, 60)
	lastCommit := fx.commits[len(fx.commits)-2] + 1 // first seq of the last commit
	newest := newestMeta(t, fx)
	path := writeFile(t, fx.id+Ext, damageMeta(fx.bytes, newest))

	// What bbolt alone sees: the last commit is gone, and it says nothing.
	db := mustBolt(t, path)
	if n := countRecords(t, db); n != int(lastCommit-1) {
		t.Fatalf("bbolt read %d records; the test expects it to drop the last commit (%d records)", n, len(fx.records)-int(lastCommit-1))
	}
	db.Close()

	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	d := r.Damage()
	r.Close()
	if d == nil || d.Lost == nil || d.MetaPage != newest || !d.Lost.Complete || d.Lost.From != lastCommit || d.Lost.To != uint64(len(fx.records)) {
		t.Fatalf("damage report %+v (lost %+v); want meta page %d and a complete lost commit %d..%d", d, lostOf(d), newest, lastCommit, len(fx.records))
	}
	if len(d.Lost.Calls) == 0 || !strings.Contains(d.String(), "calls in it: "+d.Lost.Calls[0]) {
		t.Fatalf("report names no call: %s", d)
	}
	got, err := scanAll(path)
	checkPrefix(t, "Scan", fx, got)
	var de *DamagedError
	var lc *LostCommitError
	if len(got) != len(fx.records) || !errors.As(err, &de) || !errors.As(err, &lc) || de.LastGoodSeq != uint64(len(fx.records)) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Scan: %d of %d records, %v; want all, and a DamagedError naming the file and the lost commit", len(got), len(fx.records), err)
	}

	// A writer puts the lost commit back before anything is written over it.
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := j.Damage(); d == nil || d.Lost == nil || !d.Lost.Recovered {
		t.Fatalf("writer's damage report %+v: want the lost commit recovered", d)
	}
	if j.NextSeq() != uint64(len(fx.records))+1 {
		t.Fatalf("next seq %d after recovery, want %d", j.NextSeq(), len(fx.records)+1)
	}
	appendSeq(t, j)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, err = scanAll(path)
	if err != nil || len(got) != len(fx.records)+1 {
		t.Fatalf("after recovery: %d records, %v", len(got), err)
	}
	checkPrefix(t, "after recovery", fx, got[:len(fx.records)])
	r, err = OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Damage() != nil {
		t.Fatalf("the recovery commit rewrote the damaged meta page, yet: %s", r.Damage())
	}
}

func TestLostCommitThatCannotBeRecoveredWholeRefusesAWriter(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, 60)
	lastSeq := len(fx.records)
	d := damageMeta(fx.bytes, newestMeta(t, fx))
	// Damage the last record of the lost commit as well: where it is
	// stored now, and nowhere else.
	w := fx.wires[lastSeq-1]
	i := bytes.LastIndex(d, w)
	if i < 0 || bytes.Count(d, w) != 1 {
		t.Fatalf("the last record is stored %d times", bytes.Count(d, w))
	}
	d[i+len(w)-2] ^= 0x10
	path := writeFile(t, fx.id+Ext, d)
	_, err := Open(path)
	var lc *LostCommitError
	if !errors.As(err, &lc) || lc.Report.Lost.Complete || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not resumed") {
		t.Fatalf("Open: %v; want a LostCommitError naming the file that refuses to resume", err)
	}
	after, rerr := os.ReadFile(path)
	if rerr != nil || !bytes.Equal(after, d) {
		t.Fatal("a refused Open changed the file, and with it the evidence of the lost commit")
	}
	got, err := scanAll(path)
	checkPrefix(t, "Scan", fx, got)
	if !errors.As(err, &lc) || len(got) != lastSeq-1 {
		t.Fatalf("Scan: %d records, %v; want the %d readable ones and the lost commit reported", len(got), err, lastSeq-1)
	}
}

func TestDamagedOlderMetaLosesNothing(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, 60)
	path := writeFile(t, fx.id+Ext, damageMeta(fx.bytes, 1-newestMeta(t, fx)))
	j, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	d := j.Damage()
	j.Close()
	if d == nil || d.Lost != nil || !strings.Contains(d.String(), "nothing is lost") {
		t.Fatalf("damage report %v; want the damaged page named and nothing lost", d)
	}
	got, err := scanAll(path)
	if err != nil || len(got) != len(fx.records) {
		t.Fatalf("Scan: %d records, %v", len(got), err)
	}
}

func lostOf(d *DamageReport) *LostCommit {
	if d == nil {
		return nil
	}
	return d.Lost
}

func mustBolt(t *testing.T, path string) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func countRecords(t *testing.T, db *bolt.DB) int {
	t.Helper()
	n := 0
	if err := db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucketRecords).Stats().KeyN
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}
