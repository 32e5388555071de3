package engine

import (
	"sync"
	"time"

	"github.com/docket-engine/docket/events"
)

// recorder serialises appends and groups durable commits: a caller that
// needs its records durable waits for a commit that covers them, and calls
// that arrive while a commit is in flight share the next one.
//
// Where the engine commits (the durability points), and why one commit per
// executed call is enough in a serial session:
//
//   - exec_started, before the process starts (write-ahead, DESIGN §2
//     invariant 1). A process start is the side effect the journal exists
//     to protect: once it may have happened, a resumed session must know,
//     or it could run the command a second time. The log is append-only and
//     commits are atomic and in order, so this commit also carries every
//     record before it: the model request and the model response that asked
//     for the call, the previous call's outcome and tool output, the
//     transitions. No call can start unless the response that asked for it
//     is durable too.
//   - approval_requested, when it goes out (a person is about to see it, and
//     a resumed session must ask again rather than forget it).
//   - turn_ended, and session_started / session_resumed.
//   - model_request, but only when the records it would carry hold a
//     person's words that are not durable yet (a user turn, an approval
//     decision: see personInput). A model request is not a side effect the
//     write-ahead rule protects: it changes nothing outside docket, a
//     response acts on the world only through calls, and each call's start
//     commits the response first (above). Sending it before its record is
//     durable can at worst send it twice (a resumed session asks again).
//     A person's words, in contrast, cannot be had again for free, and the
//     model's latency (seconds) is the longest window a session spends
//     waiting, so they are committed before it.
//
// So in a serial session each executed call costs one commit, the
// write-ahead one; a turn adds one at its first model request (the user
// turn) and one at its end. Parallel calls of one response share commits
// (sync below). What a kill leaves, between the write-ahead commit of call
// k and that of call k+1 (the window this grouping opened: k's outcome,
// finish and tool output, model request k+1, response k+1 and k+1's
// transitions ride on k+1's write-ahead commit):
//
//   - call k's exec_started is durable and its outcome is not: resume finds
//     k in sandboxed/unsandboxed without an outcome and interrupts it with
//     crash_recovery, "outcome unknown; not run again" (invariant 2), the
//     same as a kill while k ran. k is never re-run and never forgotten as
//     never started; what is lost is k's output, which the model is told
//     it cannot have.
//   - call k+1 was not started: its process starts only after its
//     exec_started commit returned. Response k+1 is not in the journal, so
//     resume asks the model again; whatever that answer asks for is a new
//     call with its own write-ahead commit.
//
// A kill at any other point leaves what it left before this grouping: the
// records before the last commit, and nothing of a process that was not
// covered by one. The crash tests (cmd/docket/e2e crash_test.go and the
// fault storm) kill docket at every fault point, "sending_request" included.
type recorder struct {
	log   Log
	clock Clock

	mu         sync.Mutex
	cond       *sync.Cond
	committing bool
	appended   uint64 // seq of the last append
	durable    uint64 // seq of the last durable record
	// kept is the seq of the last record holding a person's words, which
	// must be durable before a model request goes out (syncBeforeRequest).
	kept     uint64
	onRecord func(events.Record, any)
	faults   Faults
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
	if personInput(body) {
		r.kept = rec.Seq
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
		if d, ok := r.log.(DurableLog); ok {
			upTo = max(upTo, d.Durable())
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

// syncBeforeRequest is the durability point of a model request: it commits
// only when a person's words (a user turn, an approval decision) are not
// yet durable; everything else rides on the next commit, normally the next
// call's write-ahead one. See recorder.
func (r *recorder) syncBeforeRequest() error {
	r.mu.Lock()
	need := r.kept > r.durable
	r.mu.Unlock()
	if !need {
		return nil
	}
	return r.sync()
}

// personInput reports whether a record body holds what a person said: the
// prompt of a user turn, or an answer to an approval request (with its
// feedback). Those are never left waiting in memory through a model
// request. A grant or a saved rule follows its decision, so it is covered.
func personInput(body any) bool {
	switch body.(type) {
	case events.UserTurn, *events.UserTurn, events.Decision, *events.Decision:
		return true
	}
	return false
}
