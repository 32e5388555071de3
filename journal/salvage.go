package journal

import (
	"errors"
	"fmt"
	"math"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal/internal/boltfile"
)

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
	// metaAgrees: the journal opened and its meta bucket's copy of the
	// session id (written when the journal is made) is the name's.
	metaAgrees := false
	yield := func(r events.Record) error {
		// A damaged file read page by page has no meta bucket to say whose
		// it is; its first record does.
		if err := checkFirstRecord(path, r); err != nil {
			if metaAgrees {
				// The other copy of the id agrees with the name: this
				// record is damaged, the file not replaced.
				return callerError{&DamagedError{Path: path, LastGoodSeq: r.Seq - 1, Err: fmt.Errorf("record %d is damaged: %w", r.Seq, err)}}
			}
			return callerError{err}
		}
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
		metaAgrees = j.sessionID == idFromPath(path)
		// Records past the committed seq were never acknowledged (a
		// commit cut short leaves them in free pages): salvage stops there.
		limit = j.committedSeq()
		err = j.Each(from, yield)
		_ = j.Close() // read-only: closing loses nothing
		if d := j.damage; d != nil && d.Lost != nil {
			if err == nil {
				return yieldLost(path, d, next, yield)
			}
			limit = max(limit, d.Lost.To)
		}
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
		if found, serr = boltfile.Salvage(path); serr != nil {
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
	return &DamagedError{Path: path, LastGoodSeq: next - 1, Err: damaged.Err, limit: limit}
}

// yieldLost yields the readable records of a commit that a damaged meta
// page dropped, from seq next on, and reports the loss.
func yieldLost(path string, d *DamageReport, next uint64, yield func(events.Record) error) error {
	for _, r := range d.Lost.Records {
		if r.Seq < next {
			continue
		}
		if err := yield(r); err != nil {
			return err.(callerError).err
		}
		next = r.Seq + 1
	}
	return &DamagedError{Path: path, LastGoodSeq: next - 1, Err: &LostCommitError{Report: d}}
}

// callerError carries an error of Scan's caller through Each, so that it is
// not mistaken for damage.
type callerError struct{ err error }

func (e callerError) Error() string { return e.err.Error() }

// committedSeq returns the last seq the journal knows to be durable.
func (j *Journal) committedSeq() uint64 { return j.Durable() }

// Durable returns the seq of the last record a Commit made durable (0 for
// none). Records appended while a Commit ran may be covered by it; this
// says exactly which were, so a caller need not commit again for them.
func (j *Journal) Durable() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.committed
}
