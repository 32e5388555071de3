package journal

import (
	"bytes"
	"errors"
	"testing"
)

// TestADamagedSessionIDIsDamageNotAnotherSession damages, one at a time,
// each copy of the session id a journal keeps (the meta bucket's and the
// session_started record's): the other copy still agrees with the file's
// name, so the file is damaged, not another session's, and Scan says so
// (found by FuzzScanDamaged). Both copies naming another session is
// still an *IdentityError.
func TestADamagedSessionIDIsDamageNotAnotherSession(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, 3)
	id := []byte(testID)
	var at []int
	for i := 0; ; {
		j := bytes.Index(fx.bytes[i:], id)
		if j < 0 {
			break
		}
		at = append(at, i+j)
		i += j + 1
	}
	if len(at) < 2 {
		t.Fatalf("the session id is in the file %d times, want at least 2 (meta bucket, first record)", len(at))
	}
	// Older copies lie in pages bbolt freed: damaging one changes nothing.
	other := []byte("0199a1b2-03d4") // one character off, still a session id
	damage := func(t *testing.T, offsets []int) ([]int, error) {
		data := bytes.Clone(fx.bytes)
		for _, off := range offsets {
			copy(data[off:], other)
		}
		got, err := scanAll(writeFileIn(t, t.TempDir(), testID+Ext, data))
		return make([]int, len(got)), err
	}
	for _, off := range at {
		got, err := damage(t, []int{off})
		var de *DamagedError
		if err != nil && !errors.As(err, &de) {
			t.Errorf("the copy at %d damaged: %d records, %v (%T); want a DamagedError or none", off, len(got), err, err)
		}
	}
	got, err := damage(t, at)
	var ie *IdentityError
	if !errors.As(err, &ie) || len(got) != 0 {
		t.Fatalf("every copy names another session: %d records, %v; want an IdentityError", len(got), err)
	}
}
