package journal

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal/internal/boltfile"
)

// FuzzScanDamaged damages a valid journal the way the fuzzer chooses (two
// overwrites and a truncation) and opens it every way there is: nothing may
// panic or hang, errors are typed and name the file, and whatever is read is
// a prefix of the original records, byte for byte.
func FuzzScanDamaged(f *testing.F) {
	fx := buildJournal(f, f.TempDir(), testID, 45)
	size := uint32(len(fx.bytes))
	f.Add(uint32(0), []byte{}, uint32(0), []byte{}, uint32(0))
	f.Add(uint32(16), []byte{0xff}, uint32(4096+16), []byte{0xff}, uint32(0)) // both metas
	f.Add(uint32(0), []byte{}, uint32(0), []byte{}, size/2)                   // truncated
	f.Add(uint32(2*4096+10), []byte{0xff, 0xff}, uint32(0), []byte{}, uint32(0))
	f.Add(uint32(3*4096), bytes.Repeat([]byte{0}, 4096), uint32(0), []byte{}, uint32(0))
	f.Add(uint32(4096+40), []byte{0x7f}, uint32(5*4096+8), []byte{0x01}, size-100)
	// testdata/fuzz holds inputs that once hung or crashed: a branch
	// element pointing at a meta page sent bbolt's cursor round forever.
	f.Fuzz(func(t *testing.T, off1 uint32, patch1 []byte, off2 uint32, patch2 []byte, cut uint32) {
		data := bytes.Clone(fx.bytes)
		copy(data[off1%size:], patch1)
		copy(data[off2%size:], patch2)
		if cut != 0 {
			data = data[:cut%(size+1)]
		}
		tryDamaged(t, t.TempDir(), fx, damageCase{"fuzzed", data})
	})
}

// FuzzScanAllDamaged damages a valid journal as FuzzScanDamaged does and
// runs the salvaging read an audit uses: nothing may panic or hang, every
// record yielded is an original in rising seq order, and every seq up to
// the end the journal claims is either read or in a gap with a reason.
// testdata/fuzz/FuzzScanAllDamaged holds one seed per page type (meta,
// freelist, branch, leaf, overflow) and a damaged record.
func FuzzScanAllDamaged(f *testing.F) {
	fx := buildJournal(f, f.TempDir(), testID, damageRecords)
	size := uint32(len(fx.bytes))
	f.Add(uint32(0), []byte{}, uint32(0), []byte{}, uint32(0))
	f.Fuzz(func(t *testing.T, off1 uint32, patch1 []byte, off2 uint32, patch2 []byte, cut uint32) {
		data := bytes.Clone(fx.bytes)
		copy(data[off1%size:], patch1)
		copy(data[off2%size:], patch2)
		if cut != 0 {
			data = data[:cut%(size+1)]
		}
		dir := t.TempDir()
		scanAllOf(t, "fuzzed", writeFileIn(t, dir, fx.id+Ext, data), fx)
	})
}

// FuzzSalvageLeaf feeds raw bytes to the page parser the salvage path
// runs on every leaf-flagged page of a damaged file: it must return,
// whatever the element table claims.
func FuzzSalvageLeaf(f *testing.F) {
	fx := buildJournal(f, f.TempDir(), testID, 20)
	for p := 2; (p+1)*boltfile.DefaultPageSize <= len(fx.bytes); p++ {
		page := fx.bytes[p*boltfile.DefaultPageSize : (p+1)*boltfile.DefaultPageSize]
		if binary.LittleEndian.Uint16(page[8:]) == boltfile.LeafPageFlag {
			f.Add(bytes.Clone(page))
		}
	}
	f.Fuzz(func(t *testing.T, page []byte) {
		found := map[uint64]events.Record{}
		boltfile.ScanLeaf(page, found, 0)
		for seq, r := range found {
			if r.Seq != seq {
				t.Fatalf("record under seq %d says seq %d", seq, r.Seq)
			}
		}
	})
}
