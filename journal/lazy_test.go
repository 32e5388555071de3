package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/docket-engine/docket/journal/internal/boltfile"
)

// A reader's open checks branch pages and leaves each leaf's header until
// it is read. A leaf pointer turned towards a stale branch page that leads
// back into the tree (a loop bbolt's cursor would follow until the stack
// ran out) is caught when a read reaches it, as damage naming the page;
// reads that never reach it succeed, and a writer's open, which checks
// every page, refuses the file outright.
func TestLeafPointerIntoAStaleBranchIsCaughtWhenRead(t *testing.T) {
	fx := buildJournal(t, t.TempDir(), testID, damageRecords)
	live := livePages(t, fx)
	branch, stale := -1, -1
	for p := range live {
		if live[p] == 1 {
			branch = p
		}
	}
	// A page on the freelist: free, so nothing live points at it.
	fl := int(freelistOf(t, fx)) * boltfile.DefaultPageSize
	if n := int(binary.LittleEndian.Uint16(fx.bytes[fl+10:])); n > 0 && n < 0xffff {
		stale = int(binary.LittleEndian.Uint64(fx.bytes[fl+boltfile.PageHeaderSize:]))
	}
	if branch < 0 || stale < 0 {
		t.Fatalf("fixture lacks a branch page (%d) or an unused page (%d)", branch, stale)
	}
	const ps = boltfile.DefaultPageSize
	d := bytes.Clone(fx.bytes)
	// The unused page becomes a branch page whose one element leads back
	// to the live branch page: a loop.
	page := d[stale*ps : (stale+1)*ps]
	clear(page)
	binary.LittleEndian.PutUint64(page[0:], uint64(stale))
	binary.LittleEndian.PutUint16(page[8:], 0x01)
	binary.LittleEndian.PutUint16(page[10:], 1)
	binary.LittleEndian.PutUint32(page[16:], 16) // key right after the element
	binary.LittleEndian.PutUint32(page[20:], 8)  // 8-byte key
	binary.LittleEndian.PutUint64(page[24:], uint64(branch))
	// The live branch page's third element now points at it (not the
	// last: opening reads the last leaf, to find the next seq; nor the
	// first two: opening reads seq 1, and a cursor steps one leaf on).
	if count := int(binary.LittleEndian.Uint16(d[branch*ps+10:])); count < 4 {
		t.Fatalf("branch page %d has %d elements", branch, count)
	}
	elem := branch*ps + boltfile.PageHeaderSize + 2*boltfile.BranchElemSize
	firstOfLast := binary.BigEndian.Uint64(d[elem+int(binary.LittleEndian.Uint32(d[elem:])):])
	binary.LittleEndian.PutUint64(d[elem+8:], uint64(stale))
	path := writeFile(t, fx.id+Ext, d)

	j, err := OpenReadOnly(path)
	if err != nil {
		t.Fatalf("a reader's open reads no leaf, so it should not see the damage yet: %v", err)
	}
	if got, err := j.Range(1, 5); err != nil || len(got) != 5 {
		t.Fatalf("a read far from the damage: %d records, %v", len(got), err)
	}
	got, err := j.Range(firstOfLast, firstOfLast)
	var de *DamagedError
	want := "is pointed at as a leaf but has page flags 0x1"
	if !errors.As(err, &de) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) || len(got) != 0 {
		t.Fatalf("a read through the bad pointer: %d records, %v; want a DamagedError naming the file and saying %q", len(got), err, want)
	}
	j.Close()
	if _, err := Open(path); !errors.As(err, &de) {
		t.Fatalf("a writer's open: %v; want it refused as damaged", err)
	}
	recs, err := scanAll(path)
	checkPrefix(t, "Scan", fx, recs)
	if !errors.As(err, &de) {
		t.Fatalf("Scan: %d records, %v", len(recs), err)
	}
}

// freelistOf returns the freelist page of fx's newest meta.
func freelistOf(t *testing.T, fx fixture) uint64 {
	t.Helper()
	m, ok := boltfile.ParseMeta(fx.bytes[newestMeta(t, fx)*boltfile.DefaultPageSize:])
	if !ok {
		t.Fatal("no meta")
	}
	return m.Freelist
}
