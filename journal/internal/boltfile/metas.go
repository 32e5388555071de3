package boltfile

import (
	"encoding/binary"
	"os"
)

// MetaState is what one of the two meta pages holds, read whether or not it
// is valid: a damaged page's fields are what its bytes say, unverified.
type MetaState struct {
	Page  int  // 0 or 1
	Valid bool // magic, version and checksum hold
	// ClaimedTxID is the txid field as stored; for an invalid page it may
	// be damaged too.
	ClaimedTxID uint64
	Meta        Meta // the decoded fields when Valid
}

// Metas reads both meta pages of f, with pageSize from Check's choice (or
// DefaultPageSize when the caller has none). bbolt uses the valid one with
// the higher txid and says nothing about the other; Docket must notice an
// invalid newest meta, because the commit it recorded is then dropped.
func Metas(f *os.File, pageSize int64) [2]MetaState {
	var out [2]MetaState
	for i := range out {
		var buf [MetaOffset + MetaSize]byte
		n, _ := f.ReadAt(buf[:], int64(i)*pageSize)
		out[i].Page = i
		if n >= MetaOffset+MetaSize {
			out[i].ClaimedTxID = binary.LittleEndian.Uint64(buf[MetaOffset+48:])
		}
		m, ok := ParseMeta(buf[:n])
		out[i].Valid = ok && int64(m.PageSize) == pageSize
		if out[i].Valid {
			out[i].Meta = m
		}
	}
	return out
}

// PageSizeOf returns the page size bbolt would use for f, as Check finds it.
func PageSizeOf(f *os.File) (int64, error) {
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	_, ps, err := currentMeta(f, info.Size())
	return ps, err
}
