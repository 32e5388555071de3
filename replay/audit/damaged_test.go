package audit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// copyJournal copies a journal so a test can damage the copy.
func copyJournal(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dst
}

// auditPrefix audits the first n records of an intact journal in memory:
// what a damaged copy that stops after seq n must report.
func auditPrefix(t *testing.T, path string, n uint64) *Report {
	t.Helper()
	var c collector
	a := newAuditor(path, Options{}, &c)
	a.scanned = true
	errStop := errors.New("stop")
	err := journal.Scan(path, 1, func(r events.Record) error {
		if r.Seq > n {
			return errStop
		}
		return a.feed(r)
	})
	if err != nil && !errors.Is(err, errStop) {
		t.Fatal(err)
	}
	if err := a.end(nil); err != nil {
		t.Fatal(err)
	}
	return c.report
}

// auditRead audits, in memory, the records of an intact journal that a
// damaged copy's audit says it read: every seq outside its unread gaps.
func auditRead(t *testing.T, path string, d *Damage) *Report {
	t.Helper()
	var c collector
	a := newAuditor(path, Options{}, &c)
	a.scanned = true
	unread := func(seq uint64) bool {
		for _, g := range d.Unread {
			if seq >= g.From && (g.To == 0 || seq <= g.To) {
				return true
			}
		}
		return seq > d.Last
	}
	err := journal.Scan(path, 1, func(r events.Record) error {
		if unread(r.Seq) {
			return nil
		}
		return a.feed(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.end(nil); err != nil {
		t.Fatal(err)
	}
	return c.report
}

func lastSeq(t *testing.T, path string) uint64 {
	t.Helper()
	var last uint64
	if err := journal.Scan(path, 1, func(r events.Record) error { last = r.Seq; return nil }); err != nil {
		t.Fatal(err)
	}
	return last
}

func TestFlippedByteInTheLastRecordStillAuditsEveryGoodRecord(t *testing.T) {
	intact := mixedSession(t)
	last := lastSeq(t, intact)
	damaged := copyJournal(t, intact)
	b, _ := os.ReadFile(damaged)
	// The last record is the parked turn_ended; "parked" is in no other record.
	i := bytes.LastIndex(b, []byte(events.TurnParked))
	if i < 0 || bytes.Count(b, []byte(events.TurnParked)) != 1 {
		t.Fatalf("marker found %d times", bytes.Count(b, []byte(events.TurnParked)))
	}
	b[i] ^= 0x20
	if err := os.WriteFile(damaged, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Build(damaged, Options{})
	if err != nil {
		t.Fatalf("a damaged tail must not fail the audit: %v", err)
	}
	if r.Damaged == nil || r.Damaged.LastGoodSeq != last-1 || !strings.Contains(r.Damaged.Error, "CRC") {
		t.Fatalf("damaged = %+v, want last good seq %d and a CRC error", r.Damaged, last-1)
	}
	want := auditPrefix(t, intact, last-1)
	if marshal(r.Calls) != marshal(want.Calls) || len(r.Calls) != 13 {
		t.Errorf("calls before the damage differ from an audit of the intact prefix")
	}
	var text bytes.Buffer
	if err := WriteText(&text, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "DAMAGED: the journal cannot be read after seq") {
		t.Errorf("text does not say where it stopped:\n%s", text.String())
	}
	one, err := Build(damaged, Options{CallID: "c3"})
	if err != nil || one.Damaged != nil || len(one.Calls) != 1 || !one.Calls[0].RanUnsandboxed {
		t.Errorf("one intact call through the index of a damaged file: %+v, %v", one, err)
	}
}

func TestTruncatedJournalAuditsTheIntactPrefix(t *testing.T) {
	intact := mixedSession(t)
	info, err := os.Stat(intact)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Build(intact, Options{})
	if err != nil {
		t.Fatal(err)
	}
	partial := 0
	for size := int64(4096); size < info.Size(); size += 4096 {
		damaged := copyJournal(t, intact)
		if err := os.Truncate(damaged, size); err != nil {
			t.Fatal(err)
		}
		r, err := Build(damaged, Options{})
		if err != nil {
			var nj *journal.NotJournalError
			if !errors.As(err, &nj) || !strings.Contains(err.Error(), damaged) {
				t.Errorf("truncated to %d bytes: %v: want a NotJournalError naming the file", size, err)
			}
			continue
		}
		if r.Damaged == nil {
			// Only free pages were cut off: nothing may be missing.
			if marshal(r.Calls) != marshal(full.Calls) {
				t.Errorf("truncated to %d bytes: no damage reported but the calls differ", size)
			}
			continue
		}
		if len(r.Calls) > 0 && r.Damaged.LastGoodSeq > 0 {
			partial++
		}
		want := auditRead(t, intact, r.Damaged)
		if marshal(r.Calls) != marshal(want.Calls) {
			t.Errorf("truncated to %d bytes (unread %v): calls differ from an audit of the same records of the intact journal", size, r.Damaged.Unread)
		}
	}
	if partial == 0 {
		t.Errorf("no truncation produced a partial audit; the test no longer exercises salvage")
	}
}

func TestUndecodableBodyStopsTheAuditThereAsDamage(t *testing.T) {
	var c collector
	a := newAuditor("j", Options{}, &c)
	good, _ := events.NewRecord(1, t0.UnixNano(), "", events.SessionStarted{Version: 1, SessionID: "s"})
	bad := events.Record{Seq: 2, Kind: events.KindTransition, At: t0.UnixNano(), CallID: "c1", Body: []byte{0xc1}}
	if err := a.feed(good); err != nil {
		t.Fatal(err)
	}
	d, err := damageOf(a.feed(bad))
	if err != nil || d == nil || d.LastGoodSeq != 1 || !strings.Contains(d.Error, "record 2") {
		t.Fatalf("damage %+v, err %v", d, err)
	}
}
