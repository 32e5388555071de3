package boltfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// unbornZeroLimit bounds how much of a file without a valid meta page
// Unborn reads to see that it is all zeros: more than bbolt's first open
// ever writes (four pages of at most 64 KiB).
const unbornZeroLimit = 1 << 20

// Unborn reports whether f holds nothing committed: it is empty; or all
// zeros (a power cut after the file grew, before its pages reached the
// disk); or bbolt's own empty database as its first open writes it (meta
// pages of transactions 0 and 1, an empty freelist on page 2, an empty root
// leaf on page 3), followed at most by the pages of a first transaction
// whose meta page never got written. That is every state a crash can leave
// between creating a journal's file and committing its first transaction,
// and no file that holds a bucket or a key.
func Unborn(f *os.File) (bool, error) {
	info, err := f.Stat()
	if err != nil {
		return false, err
	}
	size := info.Size()
	if size == 0 {
		return true, nil
	}
	m, pageSize, err := currentMeta(f, size)
	if err != nil {
		if size > unbornZeroLimit {
			return false, nil
		}
		b := make([]byte, size)
		if _, err := f.ReadAt(b, 0); err != nil && err != io.EOF {
			return false, fmt.Errorf("read %s: %w", f.Name(), err)
		}
		return len(bytes.TrimLeft(b, "\x00")) == 0, nil
	}
	if m.TxID > 1 || m.Root != 3 || m.Freelist != 2 || m.PgID != 4 || size < 4*pageSize {
		return false, nil
	}
	for _, want := range []struct {
		page  int64
		flags uint16
	}{{2, freelistPageFlag}, {3, LeafPageFlag}} {
		var hdr [PageHeaderSize]byte
		if _, err := f.ReadAt(hdr[:], want.page*pageSize); err != nil {
			return false, fmt.Errorf("read %s: %w", f.Name(), err)
		}
		id := binary.LittleEndian.Uint64(hdr[0:])
		flags := binary.LittleEndian.Uint16(hdr[8:])
		count := binary.LittleEndian.Uint16(hdr[10:])
		overflow := binary.LittleEndian.Uint32(hdr[12:])
		if id != uint64(want.page) || flags != want.flags || count != 0 || overflow != 0 {
			return false, nil
		}
	}
	return true, nil
}
