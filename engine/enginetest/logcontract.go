package enginetest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// LogUnderTest is one fresh, empty Log and a way to see what a crash now
// would leave of it.
type LogUnderTest struct {
	Log engine.Log
	// Durable returns the records a crash at this instant would leave, in
	// seq order (for the journal: read from the file without its lock).
	Durable func() ([]events.Record, error)
}

// CheckLog runs the engine.Log contract against the logs open returns:
// seqs, round trips, failed appends, durability at Commit, and Append
// concurrent with Commit. open is called once per subtest and must return
// an empty log.
func CheckLog(t *testing.T, open func(t *testing.T) LogUnderTest) {
	at := time.Unix(1_700_000_000, 0)
	body := func(i int) events.Transition {
		return events.Transition{CallID: fmt.Sprintf("c%d", i%3), From: "wantsApproval", Event: "ask", To: "awaitingDecision",
			Cause: "rule_prompt", Reason: fmt.Sprintf("record %d", i)}
	}

	t.Run("seqs start at 1 and rise by one; a record reads back as appended", func(t *testing.T) {
		l := open(t)
		var got []events.Record
		for i := range 5 {
			r, err := l.Log.Append(at.Add(time.Duration(i)), body(i).CallID, body(i))
			if err != nil {
				t.Fatal(err)
			}
			if r.Seq != uint64(i+1) || r.CallID != body(i).CallID || r.At != at.Add(time.Duration(i)).UnixNano() {
				t.Fatalf("append %d returned seq %d call %q at %d", i, r.Seq, r.CallID, r.At)
			}
			got = append(got, r)
		}
		if err := l.Log.Commit(); err != nil {
			t.Fatal(err)
		}
		durable := mustDurable(t, l)
		sameRecords(t, durable, got)
		for i, r := range durable {
			b, err := r.Decode()
			if err != nil {
				t.Fatal(err)
			}
			if tr, ok := b.(*events.Transition); !ok || tr.Reason != body(i).Reason {
				t.Fatalf("seq %d decodes to %#v", r.Seq, b)
			}
		}
	})

	t.Run("a failed append takes no seq", func(t *testing.T) {
		l := open(t)
		if _, err := l.Log.Append(at, "", body(0)); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Log.Append(at, "", struct{ NotARecord chan int }{}); err == nil {
			t.Fatal("appending a body that is no record kind succeeded")
		}
		r, err := l.Log.Append(at, "", body(1))
		if err != nil {
			t.Fatal(err)
		}
		if r.Seq != 2 {
			t.Fatalf("the append after a failed one got seq %d, want 2", r.Seq)
		}
	})

	t.Run("commit makes every earlier append durable; an empty commit is harmless", func(t *testing.T) {
		l := open(t)
		if err := l.Log.Commit(); err != nil {
			t.Fatalf("commit with nothing pending: %v", err)
		}
		var want []events.Record
		for i := range 3 {
			r, err := l.Log.Append(at, "", body(i))
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, r)
		}
		if err := l.Log.Commit(); err != nil {
			t.Fatal(err)
		}
		sameRecords(t, mustDurable(t, l), want)
		if err := l.Log.Commit(); err != nil {
			t.Fatalf("second commit with nothing pending: %v", err)
		}
		sameRecords(t, mustDurable(t, l), want)
	})

	t.Run("appends concurrent with commits lose nothing and keep order", func(t *testing.T) {
		l := open(t)
		const writers, each = 4, 25
		var mu sync.Mutex // the engine serialises appends; commits run outside it
		var wg sync.WaitGroup
		errs := make(chan error, writers*each*2)
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					mu.Lock()
					_, err := l.Log.Append(at, "", body(w*each+i))
					mu.Unlock()
					errs <- err
					errs <- l.Log.Commit()
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Log.Commit(); err != nil {
			t.Fatal(err)
		}
		durable := mustDurable(t, l)
		if len(durable) != writers*each {
			t.Fatalf("%d records durable, want %d", len(durable), writers*each)
		}
		for i, r := range durable {
			if r.Seq != uint64(i+1) {
				t.Fatalf("record %d has seq %d: a gap or a reordering", i, r.Seq)
			}
		}
	})
}

func mustDurable(t *testing.T, l LogUnderTest) []events.Record {
	t.Helper()
	recs, err := l.Durable()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// sameRecords fails unless got holds exactly want, byte for byte.
func sameRecords(t *testing.T, got, want []events.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records durable, want %d", len(got), len(want))
	}
	for i := range want {
		g, err := got[i].Marshal()
		if err != nil {
			t.Fatal(err)
		}
		w, err := want[i].Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(g, w) {
			t.Fatalf("seq %d reads back different from what Append returned", want[i].Seq)
		}
	}
}
