package engine

import (
	"sync"
	"time"

	"github.com/docket-engine/docket/events"
)

// recorder serialises appends and groups durable commits: a caller that
// needs its records durable waits for a commit that covers them, and calls
// that arrive while a commit is in flight share the next one.
type recorder struct {
	log   Log
	clock Clock

	mu         sync.Mutex
	cond       *sync.Cond
	committing bool
	appended   uint64 // seq of the last append
	durable    uint64 // seq of the last durable record
	onRecord   func(events.Record, any)
	faults     Faults
}

func newRecorder(log Log, clock Clock, onRecord func(events.Record, any), faults Faults) *recorder {
	r := &recorder{log: log, clock: clock, onRecord: onRecord, faults: faults}
	r.cond = sync.NewCond(&r.mu)
	return r
}

func (r *recorder) now() time.Time { return r.clock.Now() }

// append buffers one record.
func (r *recorder) append(callID string, body any) (events.Record, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, err := r.log.Append(r.clock.Now(), callID, body)
	if err != nil {
		return rec, err
	}
	if rec.Seq > r.appended {
		r.appended = rec.Seq
	}
	if r.onRecord != nil {
		r.onRecord(rec, body)
	}
	if t, ok := body.(events.Transition); ok {
		r.faults.Hit("after:" + t.Event)
	}
	return rec, nil
}

// sync makes every record appended so far durable, sharing a commit with
// concurrent callers where it can.
func (r *recorder) sync() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	target := r.appended
	for r.durable < target {
		if r.committing {
			r.cond.Wait()
			continue
		}
		r.committing = true
		upTo := r.appended
		r.mu.Unlock()
		r.faults.Hit("before_commit")
		err := r.log.Commit()
		if err == nil {
			r.faults.Hit("after_commit")
		}
		r.mu.Lock()
		r.committing = false
		r.cond.Broadcast()
		if err != nil {
			return err
		}
		if upTo > r.durable {
			r.durable = upTo
		}
	}
	return nil
}

// appendDurable appends a record and waits until it is durable.
func (r *recorder) appendDurable(callID string, body any) (events.Record, error) {
	rec, err := r.append(callID, body)
	if err != nil {
		return rec, err
	}
	return rec, r.sync()
}
