package audit

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// flipRecord writes a copy of the journal at path with one bit flipped in
// every stored copy of record seq, and returns the copy's path.
func flipRecord(t *testing.T, path string, seq uint64) string {
	t.Helper()
	var wire []byte
	if err := journal.Scan(path, seq, func(r events.Record) error {
		if r.Seq == seq {
			w, err := r.Marshal()
			wire = w
			return err
		}
		return nil
	}); err != nil || wire == nil {
		t.Fatalf("record %d: %v", seq, err)
	}
	dst := copyJournal(t, path)
	b, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	// Each flip breaks the copy it hits, so every pass finds the next one.
	for i := bytes.Index(b, wire); i >= 0 && n < len(b); i = bytes.Index(b, wire) {
		b[i+len(wire)/2] ^= 0x08
		n++
	}
	if n == 0 {
		t.Fatalf("record %d is not stored verbatim", seq)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dst
}

// One bad record hides only itself: for every record position of a
// session, the audit of the damaged copy is the audit of the intact
// journal without that record, names the file and the seq it could not
// read, and --unsandboxed never vouches for what it could not read.
func TestABadRecordAnywhereHidesOnlyItself(t *testing.T) {
	for _, fx := range []struct {
		name    string
		session func(testing.TB) string
	}{{"mixed", mixedSession}, {"hardened", hardenedSession}} {
		intact := fx.session(t)
		last := lastSeq(t, intact)
		for seq := uint64(1); seq <= last; seq++ {
			what := fmt.Sprintf("%s session, record %d flipped", fx.name, seq)
			damaged := flipRecord(t, intact, seq)
			r, err := Build(damaged, Options{})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			d := r.Damaged
			if !d.Incomplete() || len(d.Unread) != 1 || d.Unread[0].From != seq || d.Unread[0].To != seq || d.Read != int(last-1) || d.Last != last {
				t.Fatalf("%s: damage %+v; want seq %d alone unread and %d of %d read", what, d, seq, last-1, last)
			}
			if want := auditRead(t, intact, d); marshal(r.Calls) != marshal(want.Calls) {
				t.Errorf("%s: calls differ from an audit of the intact journal without that record", what)
			}
			brief, err := Build(damaged, Options{UnsandboxedOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			if err := WriteText(&text, brief, Options{UnsandboxedOnly: true}); err != nil {
				t.Fatal(err)
			}
			out := text.String()
			if !strings.Contains(out, damaged) || !strings.Contains(out, fmt.Sprintf("seq %d (", seq)) || !strings.Contains(out, "INCOMPLETE") {
				t.Errorf("%s: the text does not name the file, the unread seq and that it is incomplete:\n%s", what, out)
			}
			if strings.Contains(out, "\nno call ran without a sandbox\n") {
				t.Errorf("%s: the text vouches for records it could not read:\n%s", what, out)
			}
		}
	}
}

// The incident in issue 14: one flipped bit in record 1 hid every call,
// and --unsandboxed then said no call ran without a sandbox.
func TestAFlippedFirstRecordStillListsEveryUnsandboxedCall(t *testing.T) {
	damaged := flipRecord(t, mixedSession(t), 1)
	r, err := Build(damaged, Options{UnsandboxedOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range r.Calls {
		ids = append(ids, c.CallID)
	}
	if got := strings.Join(ids, ","); got != "c3,c4,c5,c6,c7,c9,c10" {
		t.Fatalf("unsandboxed calls %s; want all seven", got)
	}
}
