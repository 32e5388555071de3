package replay

import (
	"context"
	"time"

	"github.com/docket-engine/docket/events"
)

// defaultStall bounds how long a replay segment may make no progress while
// a call waits for the recorded process's end: a replay that took another
// path can leave a call waiting for records the engine will never write,
// and must still finish (with the first record it never produced).
const defaultStall = 10 * time.Second

// A recorded process stops, for a kill, wherever each of its parallel calls
// happened to be: one was running, one waiting for an answer, one a record
// short. Stopping the whole replay at the first of these would leave the
// others' committed records unmatched. So a call that reaches its stream's
// end within a segment waits (awaitEnd) until the replay has produced every
// record of the segment, and only then does every waiting call stop with
// errCrashed, as the process did.

// segmentWindow counts the records the segment must produce: those after
// from (the session_resumed that began it) and before stopAt, less the
// session_resumed markers. It arms the end-of-segment signal.
func (l *comparingLog) segmentWindow(from uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.want = 0
	for _, st := range l.streams {
		for _, d := range st {
			if d.rec.Seq > from && (l.stopAt == 0 || d.rec.Seq < l.stopAt) && d.rec.Kind != events.KindSessionResumed {
				l.want++
			}
		}
	}
	l.progress()
}

// progress closes the end signal once every record of the segment has been
// produced; it is called with l.mu held after each match.
func (l *comparingLog) progress() {
	l.lastMatch = time.Now()
	if l.compared >= l.want && !l.ended {
		l.ended = true
		close(l.end)
	}
}

// awaitEnd blocks a call that has nothing more recorded in this segment
// until the segment's records are all produced (then errCrashed: the
// process stopped here), the replay diverged, ctx ends, or nothing has
// progressed for the stall bound (then the first unproduced record is the
// divergence).
func (l *comparingLog) awaitEnd(ctx context.Context) error {
	tick := time.NewTicker(max(l.stall/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-l.end:
			l.crash()
			return errCrashed
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			l.mu.Lock()
			if l.diverged != nil {
				d := l.diverged
				l.mu.Unlock()
				return d
			}
			stalled := time.Since(l.lastMatch) > l.stall
			l.mu.Unlock()
			if stalled {
				d := l.unconsumed()
				l.mu.Lock()
				if d == nil {
					l.mu.Unlock()
					l.crash()
					return errCrashed
				}
				if l.diverged == nil {
					l.diverged = d
				}
				d = l.diverged
				l.mu.Unlock()
				return d
			}
		}
	}
}
