package boltfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"sync"
)

// Lazy checks, for a reader, the leaf pages Check left unread, just before
// bbolt reads them: Ensure descends a bucket's tree by key, as bbolt's
// cursor will, and checks the header of each leaf a read of a key range
// can reach. Check has read every branch page, so the descent cannot loop;
// a leaf pointer that leads anywhere but to a leaf is damage, reported
// before bbolt could follow it. The cost is a few page reads per range,
// whatever the journal's length. It is safe for concurrent use.
type Lazy struct {
	f        *os.File
	meta     Meta
	pageSize int64
	buckets  map[string]bucketRoot

	mu   sync.Mutex
	good []uint64 // a bit per page: a leaf whose header was checked
}

func newLazy(path string, m Meta, pageSize int64, buckets map[string]bucketRoot) (*Lazy, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &Lazy{f: f, meta: m, pageSize: pageSize, buckets: buckets, good: make([]uint64, (m.PgID+63)/64)}, nil
}

// Close releases the file.
func (l *Lazy) Close() error {
	if l == nil {
		return nil
	}
	return l.f.Close()
}

// Ensure checks every leaf of bucket that a read of the keys from lo to hi
// can reach (nil lo: from the first key; nil hi: to the last), and the leaf
// a cursor steps into after hi. A bucket stored inline has no leaves of its
// own and needs nothing.
func (l *Lazy) Ensure(bucket string, lo, hi []byte) error {
	if l == nil {
		return nil
	}
	b, ok := l.buckets[bucket]
	if !ok {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ensure(b.page, b.height, lo, hi)
}

func (l *Lazy) ensure(id uint64, rem int, lo, hi []byte) error {
	if rem == 0 {
		return l.leaf(id)
	}
	p, err := l.branch(id)
	if err != nil {
		return err
	}
	count := int(binary.LittleEndian.Uint16(p[10:]))
	i0, i1 := 0, count-1
	if lo != nil {
		i0 = childFor(p, count, lo)
	}
	if hi != nil {
		i1 = childFor(p, count, hi)
	}
	for i := i0; i <= i1; i++ {
		if err := l.ensure(child(p, i), rem-1, lo, hi); err != nil {
			return err
		}
	}
	if i1+1 < count {
		// A cursor that runs past hi steps into the next subtree's
		// first leaf before the caller stops it.
		return l.ensure(child(p, i1+1), rem-1, nil, []byte{})
	}
	return nil
}

// branch reads a branch page Check has already checked.
func (l *Lazy) branch(id uint64) ([]byte, error) {
	p := make([]byte, l.pageSize)
	if _, err := l.f.ReadAt(p, int64(id)*l.pageSize); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	if binary.LittleEndian.Uint64(p) != id || binary.LittleEndian.Uint16(p[8:]) != branchPageFlag {
		return nil, fmt.Errorf("branch page %d changed since the journal was opened", id)
	}
	count := int(binary.LittleEndian.Uint16(p[10:]))
	if count == 0 || PageHeaderSize+count*BranchElemSize > len(p) {
		return nil, fmt.Errorf("branch page %d claims %d elements", id, count)
	}
	return p, nil
}

// leaf checks a leaf's header: its id, its flags and its overflow count.
func (l *Lazy) leaf(id uint64) error {
	if l.good[id/64]&(1<<(id%64)) != 0 {
		return nil
	}
	var hdr [PageHeaderSize]byte
	if _, err := l.f.ReadAt(hdr[:], int64(id)*l.pageSize); err != nil {
		return fmt.Errorf("page %d: %w", id, err)
	}
	if got := binary.LittleEndian.Uint64(hdr[0:]); got != id {
		return fmt.Errorf("page %d says it is page %d", id, got)
	}
	if flags := binary.LittleEndian.Uint16(hdr[8:]); flags != LeafPageFlag {
		return fmt.Errorf("page %d is pointed at as a leaf but has page flags %#x", id, flags)
	}
	overflow := uint64(binary.LittleEndian.Uint32(hdr[12:]))
	if overflow >= l.meta.PgID-id {
		return fmt.Errorf("page %d claims %d overflow pages, past the end", id, overflow)
	}
	// bbolt trusts the element table: one flipped bit in the count or a
	// position sends it reading outside the page, a panic at best.
	p := make([]byte, int64(overflow+1)*l.pageSize)
	if _, err := l.f.ReadAt(p, int64(id)*l.pageSize); err != nil {
		return fmt.Errorf("page %d: %w", id, err)
	}
	if err := leafElementsFit(id, p); err != nil {
		return err
	}
	l.good[id/64] |= 1 << (id % 64)
	return nil
}

// child returns branch element i's page.
func child(p []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(p[PageHeaderSize+i*BranchElemSize+8:])
}

// childFor returns the element bbolt's cursor descends into for key: the
// last whose key is not above it, or the first.
func childFor(p []byte, count int, key []byte) int {
	idx := 0
	for i := 0; i < count; i++ { // bounded by the element count Check verified
		e := PageHeaderSize + i*BranchElemSize
		pos, ksize := int(binary.LittleEndian.Uint32(p[e:])), int(binary.LittleEndian.Uint32(p[e+4:]))
		if e+pos+ksize > len(p) || e+pos+ksize < e || bytes.Compare(p[e+pos:e+pos+ksize], key) > 0 {
			break
		}
		idx = i
	}
	return idx
}

// leafElementsFit checks that a leaf's element count and every element's
// key and value lie inside p, the page and its overflow pages.
func leafElementsFit(id uint64, p []byte) error {
	count := int(binary.LittleEndian.Uint16(p[10:]))
	if PageHeaderSize+count*LeafElemSize > len(p) {
		return fmt.Errorf("leaf page %d claims %d elements", id, count)
	}
	for i := 0; i < count; i++ {
		e := PageHeaderSize + i*LeafElemSize
		pos := int(binary.LittleEndian.Uint32(p[e+4:]))
		ksize := int(binary.LittleEndian.Uint32(p[e+8:]))
		vsize := int(binary.LittleEndian.Uint32(p[e+12:]))
		if end := e + pos + ksize + vsize; end > len(p) || end < e || pos < 0 || ksize < 0 || vsize < 0 {
			return fmt.Errorf("leaf page %d element %d of %d lies outside the page (a damaged element table)", id, i, count)
		}
	}
	return nil
}
