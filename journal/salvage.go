package journal

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"

	"github.com/docket-engine/docket/events"
)

// bbolt's on-disk layout, as far as salvage needs it. These are the file
// format's constants, not tunables.
const (
	pageHeaderSize  = 16
	leafElemSize    = 16
	leafPageFlag    = 0x02
	bucketLeafFlag  = 0x01
	boltMagic       = 0xED0CDAED
	defaultPageSize = 4096
)

// salvage reads a file bbolt refuses to open, page by page, and returns
// every intact record (its CRC checks and its key matches its seq). Stale
// copies in freed pages are harmless: a record never changes once written.
func salvage(path string) (map[uint64]events.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only: nothing to lose
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := info.Size()
	pageSize := int64(defaultPageSize)
	var meta [64]byte
	if n, _ := f.ReadAt(meta[:], 0); n == len(meta) && binary.LittleEndian.Uint32(meta[16:]) == boltMagic {
		if ps := int64(binary.LittleEndian.Uint32(meta[24:])); ps >= 512 && ps <= 1<<16 && ps&(ps-1) == 0 {
			pageSize = ps
		}
	}
	found := map[uint64]events.Record{}
	hdr := make([]byte, pageHeaderSize)
	for off := int64(0); off+pageHeaderSize <= size; off += pageSize {
		if _, err := f.ReadAt(hdr, off); err != nil {
			break
		}
		if binary.LittleEndian.Uint16(hdr[8:]) != leafPageFlag {
			continue
		}
		span := pageSize * (int64(binary.LittleEndian.Uint32(hdr[12:])) + 1)
		if off+span > size {
			span = size - off
		}
		page := make([]byte, span)
		if _, err := f.ReadAt(page, off); err != nil && !errors.Is(err, io.EOF) {
			continue
		}
		scanLeaf(page, found, 0)
	}
	return found, nil
}

// scanLeaf collects records from one leaf page, descending into inline
// buckets (a small bucket's page stored inside its parent's value).
func scanLeaf(page []byte, found map[uint64]events.Record, depth int) {
	if len(page) < pageHeaderSize || depth > 2 {
		return
	}
	count := int(binary.LittleEndian.Uint16(page[10:]))
	for i := 0; i < count; i++ {
		e := pageHeaderSize + i*leafElemSize
		if e+leafElemSize > len(page) {
			return
		}
		flags := binary.LittleEndian.Uint32(page[e:])
		pos := int(binary.LittleEndian.Uint32(page[e+4:]))
		ksize := int(binary.LittleEndian.Uint32(page[e+8:]))
		vsize := int(binary.LittleEndian.Uint32(page[e+12:]))
		ks := e + pos
		if pos < 0 || ksize < 0 || vsize < 0 || ks < 0 || ks+ksize+vsize > len(page) || ks+ksize+vsize < ks {
			continue
		}
		key, val := page[ks:ks+ksize], page[ks+ksize:ks+ksize+vsize]
		if flags&bucketLeafFlag != 0 {
			if len(val) > 16 && binary.LittleEndian.Uint64(val) == 0 {
				scanLeaf(val[16:], found, depth+1)
			}
			continue
		}
		if ksize != 8 || vsize == 0 {
			continue
		}
		r, err := events.Unmarshal(append([]byte(nil), val...))
		if err != nil || r.Seq != binary.BigEndian.Uint64(key) {
			continue
		}
		found[r.Seq] = r
	}
}

// Scan reads the journal at path from seq from, calling fn for each record
// in order: it is what audit and replay use. It shares the file with other
// readers, but a session that a live writer holds gives *InUseError. A damaged
// file gives a *DamagedError after fn has seen every intact record before the
// damage: when bbolt's own reading stops early (a damaged page, a truncated
// file), a raw page scan salvages the records that follow, as long as they
// continue the sequence. Other failures are *NotJournalError,
// *events.NewerVersionError or fn's own error.
func Scan(path string, from uint64, fn func(events.Record) error) error {
	if err := checkFile(path); err != nil {
		return err
	}
	if from == 0 {
		from = 1
	}
	next := from
	yield := func(r events.Record) error {
		if err := fn(r); err != nil {
			return callerError{err}
		}
		next = r.Seq + 1
		return nil
	}
	limit := uint64(math.MaxUint64)
	var damaged *DamagedError
	j, err := OpenReadOnly(path)
	if err == nil {
		// Records past the committed seq were never acknowledged (a
		// commit cut short leaves them in free pages): salvage stops there.
		limit = j.committedSeq()
		err = j.Each(from, yield)
		_ = j.Close() // read-only: closing loses nothing
	}
	var ce callerError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce):
		return ce.err
	case !errors.As(err, &damaged):
		return err
	}
	found := damaged.salvaged
	if found == nil {
		var serr error
		if found, serr = salvage(path); serr != nil {
			return &DamagedError{Path: path, LastGoodSeq: next - 1, Err: errors.Join(damaged.Err, serr)}
		}
	}
	for next <= limit {
		r, ok := found[next]
		if !ok {
			break
		}
		if err := yield(r); err != nil {
			return err.(callerError).err
		}
	}
	return &DamagedError{Path: path, LastGoodSeq: next - 1, Err: damaged.Err}
}

// callerError carries an error of Scan's caller through Each, so that it is
// not mistaken for damage.
type callerError struct{ err error }

func (e callerError) Error() string { return e.err.Error() }

// committedSeq returns the last seq the journal knows to be durable.
func (j *Journal) committedSeq() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.committed
}
