package replay

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

// A turn the operator stopped (Ctrl-C, SIGTERM, a caller's cancel) or whose
// deadline passed left its running or waiting calls interrupted with cause
// cancelled or deadline and no outcome. Nothing in the journal answers such
// a call, so the replay stops the turn itself, at the same point and for
// the same reason: once every record before the interrupt is produced, it
// cancels the turn's context with the recorded cause and lets the engine
// journal the interrupt as it did.

// operatorStop is where a call was interrupted by the operator or a
// deadline: the interrupt's seq and its cause.
type operatorStop struct {
	seq   uint64
	cause states.Cause
}

// operatorStopOf reads an interrupt transition that was not the user's.
func operatorStopOf(r events.Record) (string, operatorStop, bool) {
	// msgpack keeps strings as their bytes: a body without either cause
	// is no operator stop, and most transitions skip the decode (replay
	// reads every transition of the journal here).
	if !bytes.Contains(r.Body, []byte(states.CauseCancelled)) && !bytes.Contains(r.Body, []byte(states.CauseDeadline)) {
		return "", operatorStop{}, false
	}
	b, err := r.Decode()
	if err != nil {
		return "", operatorStop{}, false
	}
	tr, ok := b.(*events.Transition)
	if !ok || tr.Event != string(states.Interrupt) {
		return "", operatorStop{}, false
	}
	switch c := states.Cause(tr.Cause); c {
	case states.CauseCancelled, states.CauseDeadline:
		return tr.CallID, operatorStop{seq: r.Seq, cause: c}, true
	}
	return "", operatorStop{}, false
}

// turnStopper cancels the turn the replay is driving.
type turnStopper struct {
	mu     sync.Mutex
	cancel context.CancelCauseFunc
}

// turn derives the context of one driven turn; done releases it.
func (s *turnStopper) turn(ctx context.Context) (tctx context.Context, done func()) {
	tctx, cancel := context.WithCancelCause(ctx)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	return tctx, func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel(nil)
	}
}

// stop cancels the current turn the way the recorded stop did: a deadline
// as a deadline, anything else as the operator's cancel (engine.stopCause
// reads it back).
func (s *turnStopper) stop(cause states.Cause) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel == nil {
		return
	}
	if cause == states.CauseDeadline {
		s.cancel(context.DeadlineExceeded)
	} else {
		s.cancel(context.Canceled)
	}
}

// stopAsRecorded waits (bounded by the stall limit) until every record of
// the segment before the stop is produced, then stops the turn and returns
// once ctx, the call's context under the turn, is done.
func (l *comparingLog) stopAsRecorded(ctx context.Context, st operatorStop) error {
	tick := time.NewTicker(max(l.stall/4, 10*time.Millisecond))
	defer tick.Stop()
	for !l.producedBefore(st.seq) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			l.mu.Lock()
			d, stalled := l.diverged, time.Since(l.lastMatch) > l.stall
			l.mu.Unlock()
			if d != nil {
				return d
			}
			if stalled {
				if d := l.unconsumed(); d != nil {
					l.mu.Lock()
					if l.diverged == nil {
						l.diverged = d
					}
					l.mu.Unlock()
					return d
				}
			}
		}
	}
	l.stopper.stop(st.cause)
	<-ctx.Done()
	return ctx.Err()
}

// producedBefore reports whether every record before seq (of this
// segment) has been produced.
func (l *comparingLog) producedBefore(seq uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, st := range l.streams {
		i := l.pos[id]
		if i < len(st) && st[i].rec.Seq < seq && st[i].rec.Kind != events.KindSessionResumed {
			return false
		}
	}
	return true
}
