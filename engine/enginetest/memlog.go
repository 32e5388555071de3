package enginetest

import (
	"sync"
	"time"

	"github.com/docket-engine/docket/events"
)

// MemLog is an in-memory engine.Log. Append encodes the record exactly as
// the journal does (events.NewRecord); Commit marks everything appended so
// far durable. Crash drops what is not, as a killed process would. It is
// safe for concurrent use. The zero value is an empty log starting at seq 1.
type MemLog struct {
	mu      sync.Mutex
	recs    []events.Record
	durable int // how many of recs are committed
	commits int
}

// Append buffers one record with the next seq.
func (l *MemLog) Append(at time.Time, callID string, body any) (events.Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, err := events.NewRecord(uint64(len(l.recs)+1), at.UnixNano(), callID, body)
	if err != nil {
		return events.Record{}, err
	}
	l.recs = append(l.recs, r)
	return r, nil
}

// Commit makes every appended record durable. With nothing pending it
// counts nothing.
func (l *MemLog) Commit() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.durable == len(l.recs) {
		return nil
	}
	l.durable = len(l.recs)
	l.commits++
	return nil
}

// Records returns every record appended, committed or not.
func (l *MemLog) Records() []events.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]events.Record(nil), l.recs...)
}

// Durable returns the records a crash now would leave.
func (l *MemLog) Durable() []events.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]events.Record(nil), l.recs[:l.durable]...)
}

// Commits returns how many commits made something durable.
func (l *MemLog) Commits() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.commits
}

// Crash drops every record not yet committed, as a kill would; appending
// continues after the last durable seq, as a resumed session's would.
func (l *MemLog) Crash() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = l.recs[:l.durable]
}
