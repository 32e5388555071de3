package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/docket-engine/docket/events"
	bolt "go.etcd.io/bbolt"
)

// batch bounds how many records a read holds at once, so reading a journal
// of any size is streamed and no bbolt transaction is held while the caller
// works.
const batch = 512

// Each calls fn for every record with seq >= from, in seq order: committed
// records first, then buffered ones. It stops at the first damaged record
// with a *DamagedError; fn has seen every record before it. fn must not
// commit to this journal.
func (j *Journal) Each(from uint64, fn func(events.Record) error) error {
	return j.each(from, math.MaxUint64, fn)
}

// each calls fn for the records with from <= seq <= to. It reads no further
// than to, so damage past the range does not fail it.
func (j *Journal) each(from, to uint64, fn func(events.Record) error) error {
	if from == 0 {
		from = 1
	}
	next := from
	for {
		j.mu.Lock()
		committed := j.committed
		j.mu.Unlock()
		for limit := min(committed, to); next <= limit; {
			recs, err := j.readBatch(next, limit)
			for _, r := range recs {
				if err := fn(r); err != nil {
					return err
				}
				next = r.Seq + 1
			}
			if err != nil {
				var nj *NotJournalError
				if errors.As(err, &nj) {
					return err
				}
				return &DamagedError{Path: j.path, LastGoodSeq: next - 1, Err: err}
			}
			if len(recs) == 0 {
				return &DamagedError{Path: j.path, LastGoodSeq: next - 1,
					Err: fmt.Errorf("records %d to %d are missing, though the journal says they were committed", next, committed)}
			}
		}
		j.mu.Lock()
		if j.committed > committed && next <= to {
			// A commit moved records out of pending while we read: read
			// them from the file rather than miss them.
			j.mu.Unlock()
			continue
		}
		pend := append([]events.Record(nil), j.pending...)
		j.mu.Unlock()
		for _, r := range pend {
			if r.Seq < next {
				continue
			}
			if r.Seq > to {
				break
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	}
}

// readBatch returns up to batch committed records with from <= seq <= to.
// The records are checked for CRC and for seq continuity.
func (j *Journal) readBatch(from, to uint64) (out []events.Record, err error) {
	err = guard(func() error {
		// A batch reads at most batch records from from.
		if err := j.lazy.Ensure(string(bucketRecords), seqKey(from), seqKey(min(to, from+batch))); err != nil {
			return err
		}
		return j.db.View(func(tx *bolt.Tx) error {
			rb := tx.Bucket(bucketRecords)
			if rb == nil {
				return &NotJournalError{Path: j.path, Reason: "it has no records bucket"}
			}
			c := rb.Cursor()
			want := from
			for k, v := c.Seek(seqKey(from)); k != nil && len(out) < batch && want <= to; k, v = c.Next() {
				if len(k) != 8 {
					return fmt.Errorf("record key of %d bytes after seq %d", len(k), want-1)
				}
				if seq := binary.BigEndian.Uint64(k); seq != want {
					return fmt.Errorf("seq %d missing (next key is %d)", want, seq)
				}
				r, err := events.Unmarshal(bytes.Clone(v))
				if err != nil {
					return err
				}
				if r.Seq != want {
					return fmt.Errorf("record under key %d says seq %d", want, r.Seq)
				}
				out = append(out, r)
				want++
			}
			return nil
		})
	})
	return out, err
}

// All returns every record. Use Each for large journals.
func (j *Journal) All() ([]events.Record, error) {
	var out []events.Record
	err := j.Each(1, func(r events.Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// Range returns the records with from <= seq <= to.
func (j *Journal) Range(from, to uint64) ([]events.Record, error) {
	var out []events.Record
	err := j.each(from, to, func(r events.Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// Call returns every record of one call, in seq order, through the call
// index (no scan of the whole journal), buffered records included.
func (j *Journal) Call(callID string) ([]events.Record, error) {
	// Holding mu keeps a commit from moving records out of pending between
	// the index read and the pending read.
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []events.Record
	var last uint64
	err := guard(func() error {
		return j.db.View(func(tx *bolt.Tx) error {
			cb, rb := tx.Bucket(bucketCalls), tx.Bucket(bucketRecords)
			if cb == nil || rb == nil {
				return &NotJournalError{Path: j.path, Reason: "it has no call index"}
			}
			prefix := append([]byte(callID), 0)
			if err := j.lazy.Ensure(string(bucketCalls), prefix, append(bytes.Clone(prefix), 0xff)); err != nil {
				return err
			}
			c := cb.Cursor()
			for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
				if len(k) != len(prefix)+8 {
					continue // another call whose id extends this one past a NUL
				}
				s := binary.BigEndian.Uint64(k[len(prefix):])
				if err := j.lazy.Ensure(string(bucketRecords), seqKey(s), seqKey(s)); err != nil {
					return err
				}
				v := rb.Get(seqKey(s))
				if v == nil {
					return fmt.Errorf("the call index names seq %d, which is missing", s)
				}
				r, err := events.Unmarshal(bytes.Clone(v))
				if err != nil {
					return err
				}
				if r.Seq != s || r.CallID != callID {
					return fmt.Errorf("the call index lists seq %d under call %q, but it is seq %d of call %q", s, callID, r.Seq, r.CallID)
				}
				out = append(out, r)
				last = s
			}
			return nil
		})
	})
	if err != nil {
		var nj *NotJournalError
		if errors.As(err, &nj) {
			return out, err
		}
		return out, &DamagedError{Path: j.path, LastGoodSeq: last, Err: fmt.Errorf("call %s: %w", callID, err)}
	}
	for _, r := range j.pending {
		if r.CallID == callID {
			out = append(out, r)
		}
	}
	return out, nil
}
