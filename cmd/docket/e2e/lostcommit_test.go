package e2e

import (
	"encoding/binary"
	"hash/fnv"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/journal/journaltest"
	bolt "go.etcd.io/bbolt"
)

// newestMetaPage returns the offset of the meta page bbolt trusts (the
// valid one with the higher txid) in a journal with 4 KiB pages.
func newestMetaPage(t *testing.T, b []byte) int {
	t.Helper()
	txid := func(off int) (uint64, bool) {
		m := b[off+16 : off+16+64]
		h := fnv.New64a()
		h.Write(m[:56])
		return binary.LittleEndian.Uint64(m[48:]), h.Sum64() == binary.LittleEndian.Uint64(m[56:])
	}
	t0, ok0 := txid(0)
	t1, ok1 := txid(4096)
	if !ok0 || !ok1 {
		t.Fatal("the crashed journal already has an invalid meta page")
	}
	if t1 > t0 {
		return 4096
	}
	return 0
}

// boltRecords counts the records bbolt alone reads from path.
func boltRecords(t *testing.T, path string) int {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	if err := db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket([]byte("records")).Stats().KeyN
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// A session killed while a command runs, whose newest meta page is then
// damaged: bbolt silently falls back to the commit before the command's
// write-ahead record. Resume must report the damage, recover that commit,
// and treat the command as interrupted; it must not run it again.
func TestDamagedNewestMetaAfterACrashDoesNotRunACommandTwice(t *testing.T) {
	t.Parallel()
	c := newCrashRun(t)
	first := c.exec(t, "while_running@1")
	if !first.signaled {
		t.Fatalf("exec was not killed while c3 ran (exit %d):\n%s", first.code, first.stderr)
	}
	time.Sleep(500 * time.Millisecond) // let the orphaned c3 finish its write
	path := c.journalPath(t)
	before, err := journaltest.OnDisk(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	meta := newestMetaPage(t, b)
	b[meta+16+60] ^= 0x04 // one bit of its checksum
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if n := boltRecords(t, path); n >= len(before) {
		t.Fatalf("bbolt still reads %d of %d records: the damage no longer drops the last commit", n, len(before))
	}
	runsBefore, _ := os.ReadFile(c.ws + "/runs.log")
	if len(runsBefore) == 0 {
		t.Fatal("nothing ran before the crash")
	}
	r := c.resume(t)
	if r.code != 0 {
		t.Fatalf("resume exited %d:\n%s", r.code, r.stderr)
	}
	after := readJournal(t, path)
	checkNoRepeats(t, c.ws, after)
	checkPrefix(t, before, after)
	checkEveryCallDone(t, after)
	if !strings.Contains(r.stderr, path) || !strings.Contains(r.stderr, "meta page") || !strings.Contains(r.stderr, "recovered") {
		t.Fatalf("resume did not report the damaged meta page and the recovered commit:\n%s", r.stderr)
	}
	interrupted := false
	for _, rec := range after[len(before):] {
		if strings.Contains(string(rec.Body), "crash_recovery") {
			interrupted = true
		}
	}
	if !interrupted {
		t.Fatal("no call was recorded as interrupted by the crash")
	}
}
