package telemetry

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// DefaultTapQueue bounds the committed records waiting to become spans.
const DefaultTapQueue = 4096

// Tap is an engine.Log that passes every record to the journal and, once
// a commit has made records durable, hands them to the span builder
// through a bounded queue. A full queue drops the records (counted), so
// telemetry never slows or blocks a call, and nothing reaches the
// collector that the journal does not hold.
type Tap struct {
	log engine.Log

	mu      sync.Mutex
	pending []events.Record

	queue   chan events.Record
	dropped atomic.Int64
	done    chan struct{}
}

// NewTap wraps log; b receives the committed records on a goroutine of
// its own until Close.
func NewTap(log engine.Log, b *Builder, queue int) *Tap {
	if queue <= 0 {
		queue = DefaultTapQueue
	}
	t := &Tap{log: log, queue: make(chan events.Record, queue), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		for r := range t.queue {
			b.Record(r)
		}
		b.End(false)
	}()
	return t
}

// Append appends to the journal and remembers the record until a commit.
func (t *Tap) Append(at time.Time, callID string, body any) (events.Record, error) {
	r, err := t.log.Append(at, callID, body)
	if err != nil {
		return r, err
	}
	t.mu.Lock()
	t.pending = append(t.pending, r)
	t.mu.Unlock()
	return r, nil
}

// Commit commits the journal; the records appended before it began are
// then durable and are queued for export.
func (t *Tap) Commit() error {
	t.mu.Lock()
	batch := t.pending
	t.pending = nil
	t.mu.Unlock()
	if err := t.log.Commit(); err != nil {
		t.mu.Lock()
		t.pending = append(batch, t.pending...)
		t.mu.Unlock()
		return err
	}
	for _, r := range batch {
		select {
		case t.queue <- r:
		default:
			t.dropped.Add(1)
		}
	}
	return nil
}

// Durable passes on how far the journal's commits reached
// (engine.DurableLog), so that tapping a session does not add commits to
// it; 0 when the wrapped log does not say. Records a commit covered that
// were appended after its batch was taken are exported with the next one.
func (t *Tap) Durable() uint64 {
	if d, ok := t.log.(engine.DurableLog); ok {
		return d.Durable()
	}
	return 0
}

// Close commits what is pending (before the journal's own Close, which
// would commit it unseen), stops taking records, and waits, at most until
// ctx is done, for the queued ones to become spans. It returns how many
// records were dropped, and the commit's error.
func (t *Tap) Close(ctx context.Context) (dropped int64, err error) {
	err = t.Commit()
	t.mu.Lock()
	n := int64(len(t.pending)) // the commit failed: not exported
	t.pending = nil
	t.mu.Unlock()
	close(t.queue)
	select {
	case <-t.done:
	case <-ctx.Done():
	}
	return t.dropped.Load() + n, err
}
