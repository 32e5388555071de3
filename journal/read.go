package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

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
	if from == 0 {
		from = 1
	}
	next := from
	for {
		recs, err := j.readBatch(next)
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
		if len(recs) < batch {
			break
		}
	}
	j.mu.Lock()
	pend := append([]events.Record(nil), j.pending...)
	j.mu.Unlock()
	for _, r := range pend {
		if r.Seq < next {
			continue
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// readBatch returns up to batch committed records starting at seq from. The
// records are checked for CRC and for seq continuity.
func (j *Journal) readBatch(from uint64) (out []events.Record, err error) {
	err = guard(func() error {
		return j.db.View(func(tx *bolt.Tx) error {
			rb := tx.Bucket(bucketRecords)
			if rb == nil {
				return &NotJournalError{Path: j.path, Reason: "no records bucket"}
			}
			c := rb.Cursor()
			want := from
			for k, v := c.Seek(seqKey(from)); k != nil && len(out) < batch; k, v = c.Next() {
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
	errStop := errors.New("stop")
	err := j.Each(from, func(r events.Record) error {
		if r.Seq > to {
			return errStop
		}
		out = append(out, r)
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return out, err
}

// Call returns every record of one call, in seq order, through the call
// index (no scan of the whole journal).
func (j *Journal) Call(callID string) ([]events.Record, error) {
	var seqs []uint64
	err := guard(func() error {
		return j.db.View(func(tx *bolt.Tx) error {
			cb := tx.Bucket(bucketCalls)
			rb := tx.Bucket(bucketRecords)
			if cb == nil || rb == nil {
				return &NotJournalError{Path: j.path, Reason: "no index bucket"}
			}
			prefix := append([]byte(callID), 0)
			c := cb.Cursor()
			for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
				if len(k) == len(prefix)+8 {
					seqs = append(seqs, binary.BigEndian.Uint64(k[len(prefix):]))
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, &DamagedError{Path: j.path, Err: err}
	}
	var out []events.Record
	for _, s := range seqs {
		var rec events.Record
		err := guard(func() error {
			return j.db.View(func(tx *bolt.Tx) error {
				v := tx.Bucket(bucketRecords).Get(seqKey(s))
				if v == nil {
					return fmt.Errorf("index names seq %d, which is missing", s)
				}
				r, err := events.Unmarshal(bytes.Clone(v))
				rec = r
				return err
			})
		})
		if err != nil {
			return out, &DamagedError{Path: j.path, LastGoodSeq: s - 1, Err: err}
		}
		out = append(out, rec)
	}
	j.mu.Lock()
	for _, r := range j.pending {
		if r.CallID == callID {
			out = append(out, r)
		}
	}
	j.mu.Unlock()
	return out, nil
}
