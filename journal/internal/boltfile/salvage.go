package boltfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/docket-engine/docket/events"
)

// bbolt's on-disk layout, as far as Salvage needs it. These are the file
// format's constants, not tunables.
const (
	PageHeaderSize  = 16
	LeafElemSize    = 16
	LeafPageFlag    = 0x02
	BucketLeafFlag  = 0x01
	Magic           = 0xED0CDAED
	DefaultPageSize = 4096
)

// Salvage reads a file bbolt refuses to open, page by page, and returns
// every intact record (its CRC checks and its key matches its seq). Stale
// copies in freed pages are harmless: a record never changes once written.
func Salvage(path string) (map[uint64]events.Record, error) {
	s, err := SalvageFile(path)
	if err != nil {
		return nil, err
	}
	return s.Records, nil
}

// Salvaged is what a raw page scan found in a journal file.
type Salvaged struct {
	// Records are the intact records, by seq.
	Records map[uint64]events.Record
	// PageOf is the page each record in Records was found on.
	PageOf map[uint64]uint64
	// MaxCommitted is the highest committed_seq marker found on any page:
	// the last seq of the newest commit whose pages are still in the file
	// (acknowledged or not). Zero when none was found.
	MaxCommitted uint64
	// Bad lists record-shaped elements that did not decode, by page; a
	// damaged record whose key is intact names its seq.
	Bad []BadRecord
	// Pages is how many pages the file holds.
	Pages uint64
}

// BadRecord is one element of a leaf page that looks like a record (an
// 8-byte key) but is not intact.
type BadRecord struct {
	Page   uint64
	Seq    uint64 // as the key says; the key may be damaged too
	Reason string
}

// committedKey is the meta bucket key that holds the last committed seq
// (package journal writes it in the same transaction as the records).
const committedKey = "committed_seq"

// SalvageFile reads path page by page, bounded by its size, and returns
// every intact record, where each was, the newest committed_seq marker and
// the elements that looked like records but were damaged.
func SalvageFile(path string) (*Salvaged, error) {
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
	pageSize := int64(DefaultPageSize)
	var meta [64]byte
	if n, _ := f.ReadAt(meta[:], 0); n == len(meta) && binary.LittleEndian.Uint32(meta[16:]) == Magic {
		if ps := int64(binary.LittleEndian.Uint32(meta[24:])); ps >= 512 && ps <= 1<<16 && ps&(ps-1) == 0 {
			pageSize = ps
		}
	}
	c := &collector{found: map[uint64]events.Record{}, pageOf: map[uint64]uint64{}}
	hdr := make([]byte, PageHeaderSize)
	for off := int64(0); off+PageHeaderSize <= size; off += pageSize {
		if _, err := f.ReadAt(hdr, off); err != nil {
			break
		}
		if binary.LittleEndian.Uint16(hdr[8:]) != LeafPageFlag {
			continue
		}
		span := pageSize * (int64(binary.LittleEndian.Uint32(hdr[12:])) + 1)
		if off+span > size || span <= 0 {
			span = size - off
		}
		page := make([]byte, span)
		if _, err := f.ReadAt(page, off); err != nil && !errors.Is(err, io.EOF) {
			continue
		}
		c.page = uint64(off / pageSize)
		c.leaf(page, 0)
	}
	return &Salvaged{Records: c.found, PageOf: c.pageOf, MaxCommitted: c.maxCommitted, Bad: c.bad,
		Pages: uint64((size + pageSize - 1) / pageSize)}, nil
}

// ScanLeaf collects records from one leaf page, descending into inline
// buckets (a small bucket's page stored inside its parent's value).
func ScanLeaf(page []byte, found map[uint64]events.Record, depth int) {
	c := &collector{found: found, pageOf: map[uint64]uint64{}}
	c.leaf(page, depth)
}

// collector gathers what a raw scan finds, page by page.
type collector struct {
	page         uint64
	found        map[uint64]events.Record
	pageOf       map[uint64]uint64
	maxCommitted uint64
	bad          []BadRecord
}

// maxBad bounds the damaged elements kept: a page of garbage can look like
// hundreds of them, and the first few say enough.
const maxBad = 256

func (c *collector) leaf(page []byte, depth int) {
	if len(page) < PageHeaderSize || depth > 2 {
		return
	}
	count := int(binary.LittleEndian.Uint16(page[10:]))
	for i := 0; i < count; i++ {
		e := PageHeaderSize + i*LeafElemSize
		if e+LeafElemSize > len(page) {
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
		if flags&BucketLeafFlag != 0 {
			if len(val) > 16 && binary.LittleEndian.Uint64(val) == 0 {
				c.leaf(val[16:], depth+1)
			}
			continue
		}
		if string(key) == committedKey && vsize == 8 {
			c.maxCommitted = max(c.maxCommitted, binary.BigEndian.Uint64(val))
			continue
		}
		if ksize != 8 || vsize == 0 {
			continue
		}
		seq := binary.BigEndian.Uint64(key)
		r, err := events.Unmarshal(append([]byte(nil), val...))
		if err == nil && r.Seq != seq {
			err = fmt.Errorf("stored under seq %d but says seq %d", seq, r.Seq)
		}
		if err != nil {
			if len(c.bad) < maxBad {
				c.bad = append(c.bad, BadRecord{Page: c.page, Seq: seq, Reason: err.Error()})
			}
			continue
		}
		if _, dup := c.found[r.Seq]; !dup {
			c.pageOf[r.Seq] = c.page
		}
		c.found[r.Seq] = r
	}
}
