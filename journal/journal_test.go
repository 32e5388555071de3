package journal

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/events"
	bolt "go.etcd.io/bbolt"
)

const testID = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"

func seqs(recs []events.Record) []uint64 {
	out := make([]uint64, len(recs))
	for i, r := range recs {
		out[i] = r.Seq
	}
	return out
}

func span(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

func mustCreate(t *testing.T, home string) *Journal {
	t.Helper()
	j, err := Create(home, testID, started())
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestCreateLaysOutTheSessionFile(t *testing.T) {
	home := t.TempDir()
	j := mustCreate(t, home)
	defer j.Close()
	want := filepath.Join(home, "sessions", "2026", "03", "14", testID+".docket")
	if j.Path() != want || j.SessionID() != testID || j.NextSeq() != 1 {
		t.Fatalf("path %s id %s next %d; want %s %s 1", j.Path(), j.SessionID(), j.NextSeq(), want, testID)
	}
	if _, err := Create(home, testID, started()); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second Create: %v, want an already-exists error", err)
	}
}

func TestAppendCommitReadInOrder(t *testing.T) {
	home := t.TempDir()
	j := mustCreate(t, home)
	var want []events.Record
	for i := 0; i < 1200; i++ { // more than two read batches
		want = append(want, appendSeq(t, j))
		if i%13 == 0 {
			if err := j.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Pending records are visible to reads, after the committed ones.
	if j.Pending() == 0 {
		t.Fatal("test needs pending records")
	}
	got, err := j.All()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("All: got seqs %v, want 1..%d", seqs(got), len(want))
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err = r.All()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("after reopen: %d records, err %v; want %d (Close commits)", len(got), err, len(want))
	}
	if r.NextSeq() != uint64(len(want)+1) {
		t.Fatalf("NextSeq after reopen = %d, want %d", r.NextSeq(), len(want)+1)
	}
	for i, rec := range got {
		if !reflect.DeepEqual(rec, wantRecord(t, testID, uint64(i+1))) {
			t.Fatalf("record %d is not what was appended", i+1)
		}
		if _, err := rec.Decode(); err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
	}
}

func TestEachFromAndStop(t *testing.T) {
	j := mustCreate(t, t.TempDir())
	defer j.Close()
	for i := 0; i < 30; i++ {
		appendSeq(t, j)
		if i == 19 {
			if err := j.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got []uint64
	stop := errors.New("stop")
	err := j.Each(18, func(r events.Record) error {
		got = append(got, r.Seq)
		if r.Seq == 24 {
			return stop
		}
		return nil
	})
	if err != stop || !reflect.DeepEqual(got, span(18, 24)) {
		t.Fatalf("Each(18) stopped with %v after %v; want the callback's error after 18..24", err, got)
	}
}

func TestRange(t *testing.T) {
	j := mustCreate(t, t.TempDir())
	defer j.Close()
	for i := 0; i < 700; i++ {
		appendSeq(t, j)
		if i%50 == 49 {
			if err := j.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	} // 1..700 committed; 701..? none pending yet
	for i := 0; i < 5; i++ {
		appendSeq(t, j) // 701..705 pending
	}
	tests := []struct {
		name     string
		from, to uint64
		want     []uint64
	}{
		{"one record", 7, 7, []uint64{7}},
		{"from zero means from one", 0, 3, span(1, 3)},
		{"across a read batch", 500, 530, span(500, 530)},
		{"committed into pending", 698, 703, span(698, 703)},
		{"only pending", 702, 705, span(702, 705)},
		{"past the end", 704, 900, span(704, 705)},
		{"beyond everything", 800, 900, nil},
		{"empty range", 9, 8, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := j.Range(tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(seqs(got), tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Fatalf("Range(%d, %d) = %v, want %v", tt.from, tt.to, seqs(got), tt.want)
			}
		})
	}
}

func TestCallIndex(t *testing.T) {
	home := t.TempDir()
	j := mustCreate(t, home)
	add := func(call string, body any) events.Record {
		r, err := j.Append(atOf(j.NextSeq()), call, body)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var a, ab []events.Record
	a = append(a, add("a", events.Transition{CallID: "a", From: "wantsApproval", Event: "run_sandboxed", To: "sandboxed"}))
	ab = append(ab, add("ab", events.Transition{CallID: "ab"}))
	add("", events.ModelRequest{TurnID: "t"})
	a = append(a, add("a", events.ExecStarted{CallID: "a"}))
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	a = append(a, add("a", events.ExecOutcome{CallID: "a"}))     // pending
	ab = append(ab, add("ab", events.ExecOutcome{CallID: "ab"})) // pending
	check := func(when string, j *Journal) {
		t.Helper()
		for call, want := range map[string][]events.Record{"a": a, "ab": ab, "": nil, "zzz": nil, "a\x00": nil} {
			got, err := j.Call(call)
			if err != nil {
				t.Fatalf("%s: Call(%q): %v", when, call, err)
			}
			if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("%s: Call(%q) = seqs %v, want %v", when, call, seqs(got), seqs(want))
			}
		}
	}
	check("with pending records", j)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	check("after reopen", r)
}

func TestCommitsCountsDurableCommitsOnly(t *testing.T) {
	j := mustCreate(t, t.TempDir())
	defer j.Close()
	base := j.Commits() // Create's own initialising commit
	if err := j.Commit(); err != nil || j.Commits() != base {
		t.Fatalf("empty Commit counted: %d -> %d (%v)", base, j.Commits(), err)
	}
	for i := 1; i <= 4; i++ {
		for k := 0; k < i; k++ {
			appendSeq(t, j)
		}
		if j.Commits() != base+uint64(i-1) {
			t.Fatalf("Append counted as a commit")
		}
		if err := j.Commit(); err != nil {
			t.Fatal(err)
		}
		if j.Commits() != base+uint64(i) || j.Pending() != 0 {
			t.Fatalf("after commit %d: Commits = %d, Pending = %d", i, j.Commits()-base, j.Pending())
		}
		if err := j.Commit(); err != nil {
			t.Fatal(err)
		}
		if j.Commits() != base+uint64(i) {
			t.Fatalf("a Commit with nothing pending was counted")
		}
	}
	if _, err := j.AppendDurable(atOf(99), "", events.UserTurn{TurnID: "t"}); err != nil || j.Commits() != base+5 {
		t.Fatalf("AppendDurable: %v, commits %d", err, j.Commits()-base)
	}
}

func TestAbandonLosesOnlyWhatWasNotCommitted(t *testing.T) {
	home := t.TempDir()
	j := mustCreate(t, home)
	for i := 0; i < 10; i++ {
		appendSeq(t, j)
	}
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		appendSeq(t, j)
	}
	if err := j.Abandon(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(j.Path() + ".pid"); !os.IsNotExist(err) {
		t.Errorf("Abandon left the pid file: %v", err)
	}
	re, err := Open(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	got, err := re.All()
	if err != nil || !reflect.DeepEqual(seqs(got), span(1, 10)) {
		t.Fatalf("after Abandon: seqs %v (%v), want 1..10", seqs(got), err)
	}
	if re.NextSeq() != 11 || re.SessionID() != testID {
		t.Fatalf("reopened: next %d id %s", re.NextSeq(), re.SessionID())
	}
	// The resumed session continues the sequence where the durable part ends.
	r := appendSeq(t, re)
	if r.Seq != 11 {
		t.Fatalf("resumed append got seq %d, want 11", r.Seq)
	}
	if err := re.Close(); err != nil {
		t.Fatal(err)
	}
	got, err = scanAll(j.Path())
	if err != nil || !reflect.DeepEqual(seqs(got), span(1, 11)) {
		t.Fatalf("Scan after resume: %v (%v)", seqs(got), err)
	}
}

func TestReadOnlyJournalRefusesWrites(t *testing.T) {
	j := mustCreate(t, t.TempDir())
	appendSeq(t, j)
	j.Close()
	r, err := OpenReadOnly(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Append(atOf(2), "", events.UserTurn{}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("Append on a read-only journal: %v", err)
	}
	// Readers share the file.
	r2, err := OpenReadOnly(j.Path())
	if err != nil {
		t.Fatalf("second reader: %v", err)
	}
	r2.Close()
}

func TestAppendRejectsNonBodies(t *testing.T) {
	j := mustCreate(t, t.TempDir())
	defer j.Close()
	if _, err := j.Append(atOf(1), "", 42); err == nil {
		t.Fatal("Append(42) succeeded")
	}
	if j.NextSeq() != 1 || j.Pending() != 0 {
		t.Fatalf("a rejected append consumed seq: next %d pending %d", j.NextSeq(), j.Pending())
	}
}

func TestConcurrentAppendsAndCommits(t *testing.T) {
	j := mustCreate(t, t.TempDir())
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if _, err := j.Append(atOf(1), "c", events.Transition{CallID: "c"}); err != nil {
					t.Error(err)
					return
				}
				if i%10 == 0 {
					if err := j.Commit(); err != nil {
						t.Error(err)
					}
				}
				if _, err := j.Range(1, 5); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := scanAll(j.Path())
	if err != nil || !reflect.DeepEqual(seqs(got), span(1, 200)) {
		t.Fatalf("after concurrent writers: %d records (%v), want 1..200", len(got), err)
	}
}

func TestCallIndexDamage(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(calls, records *bolt.Bucket) error
		want   string
	}{
		{"index points at another call's record", func(calls, _ *bolt.Bucket) error {
			return calls.Put(callKey("a", 2), nil)
		}, `the call index lists seq 2 under call "a", but it is seq 2 of call "b"`},
		{"index points at a missing record", func(calls, _ *bolt.Bucket) error {
			return calls.Put(callKey("a", 99), nil)
		}, "the call index names seq 99, which is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := mustCreate(t, t.TempDir())
			if _, err := j.Append(atOf(1), "a", events.Transition{CallID: "a"}); err != nil {
				t.Fatal(err)
			}
			if _, err := j.Append(atOf(2), "b", events.Transition{CallID: "b"}); err != nil {
				t.Fatal(err)
			}
			if _, err := j.Append(atOf(3), "a", events.Transition{CallID: "a"}); err != nil {
				t.Fatal(err)
			}
			j.Close()
			db, err := bolt.Open(j.Path(), 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = db.Update(func(tx *bolt.Tx) error { return tt.tamper(tx.Bucket(bucketCalls), tx.Bucket(bucketRecords)) })
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
			r, err := OpenReadOnly(j.Path())
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			_, err = r.Call("a")
			var de *DamagedError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), j.Path()) {
				t.Fatalf("Call(a): %v; want a DamagedError naming the file and saying %q", err, tt.want)
			}
			if got, err := r.Call("b"); err != nil || len(got) != 1 {
				t.Fatalf("Call(b) is unaffected: %d records, %v", len(got), err)
			}
		})
	}
}
