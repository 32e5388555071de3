package boltfile

import (
	"encoding/binary"
	"errors"
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
	found := map[uint64]events.Record{}
	hdr := make([]byte, PageHeaderSize)
	for off := int64(0); off+PageHeaderSize <= size; off += pageSize {
		if _, err := f.ReadAt(hdr, off); err != nil {
			break
		}
		if binary.LittleEndian.Uint16(hdr[8:]) != LeafPageFlag {
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
		ScanLeaf(page, found, 0)
	}
	return found, nil
}

// ScanLeaf collects records from one leaf page, descending into inline
// buckets (a small bucket's page stored inside its parent's value).
func ScanLeaf(page []byte, found map[uint64]events.Record, depth int) {
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
				ScanLeaf(val[16:], found, depth+1)
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
