package states

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/docket-engine/docket/events"
	"github.com/looplab/fsm"
)

// Sink accepts a transition record before the machine moves. The engine's
// sink appends it to the journal; an error leaves the machine where it was.
type Sink interface {
	RecordTransition(events.Transition) error
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(events.Transition) error

// RecordTransition calls f.
func (f SinkFunc) RecordTransition(t events.Transition) error { return f(t) }

// InvalidTransitionError is returned for an event the table does not allow
// from the call's current state. The engine treats it as a bug.
type InvalidTransitionError struct {
	CallID string
	State  State
	Event  Event
}

func (e *InvalidTransitionError) Error() string {
	return fmt.Sprintf("call %s: event %q is not allowed in state %q", e.CallID, e.Event, e.State)
}

// descs turns the table into looplab's event descriptions.
func descs() fsm.Events {
	t := Table()
	out := make(fsm.Events, 0, len(t))
	for _, e := range t {
		src := make([]string, len(e.From))
		for i, s := range e.From {
			src[i] = string(s)
		}
		out = append(out, fsm.EventDesc{Name: string(e.Event), Src: src, Dst: string(e.To)})
	}
	return out
}

// move carries one Fire through looplab's before_event callback: what the
// record needs besides what looplab knows (source, event, destination), and
// what the callback found.
type move struct {
	callID string
	cause  Cause
	reason string
	sink   Sink

	rec     events.Transition // the transition as looplab computed it
	refused error             // the sink's error: the move was cancelled
}

// recordBeforeMove is the one callback: looplab calls it with the source and
// the destination it looked up, before it changes state. It builds the
// transition record from them and hands it to the sink; a sink error
// cancels the move.
func recordBeforeMove(_ context.Context, e *fsm.Event) {
	m, ok := e.Args[0].(*move)
	if !ok {
		e.Cancel(errors.New("states: an event fired without its move"))
		return
	}
	m.rec = events.Transition{CallID: m.callID, From: e.Src, Event: e.Event, To: e.Dst, Cause: string(m.cause), Reason: m.reason}
	if m.sink == nil {
		return
	}
	if err := m.sink.RecordTransition(m.rec); err != nil {
		m.refused = err
		e.Cancel(err)
	}
}

// Pool builds the state machines of a session's calls. It keeps a pool of
// looplab FSMs, built once from Table(), so that a session of many calls
// does not build one per call: a Machine holds its own state, and each move
// borrows an FSM, sets it to that state and lets looplab check and perform
// the event. Hold one per session; it is safe for concurrent use.
type Pool struct {
	fsms sync.Pool
}

// NewPool returns a pool of FSMs built from Table().
func NewPool() *Pool {
	p := &Pool{}
	evs := descs()
	p.fsms.New = func() any {
		return fsm.NewFSM(string(WantsApproval), evs, fsm.Callbacks{"before_event": recordBeforeMove})
	}
	return p
}

// Restore returns the machine of a call in state s, as rebuilt from a
// journal.
func (p *Pool) Restore(id string, s State, sink Sink) *Machine {
	return &Machine{id: id, state: s, sink: sink, pool: p}
}

// Machine is the state machine of one tool call.
type Machine struct {
	id   string
	sink Sink
	pool *Pool

	mu    sync.Mutex
	state State
	mv    move // the move in progress, guarded by mu (Fire)
}

// Current returns the call's state.
func (m *Machine) Current() State {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state
}

// Can reports whether looplab allows ev now.
func (m *Machine) Can(ev Event) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.pool.fsms.Get().(*fsm.FSM)
	defer m.pool.fsms.Put(f)
	f.SetState(string(m.state))
	return f.Can(string(ev))
}

// Fire moves the call by ev. looplab looks up the destination; its
// before_event callback hands the transition record to the sink, and only
// if the sink accepts it does the machine move.
func (m *Machine) Fire(ctx context.Context, ev Event, cause Cause, reason string) (events.Transition, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	from := m.state
	f := m.pool.fsms.Get().(*fsm.FSM)
	defer m.pool.fsms.Put(f)
	f.SetState(string(from))
	// The move is the machine's own, reused under m.mu: one allocation
	// less per transition (issue 31).
	mv := &m.mv
	*mv = move{callID: m.id, cause: cause, reason: reason, sink: m.sink}
	// Once the sink has the transition it must happen: looplab skips the
	// move (and stays mid-transition) when its context is cancelled.
	err := f.Event(context.WithoutCancel(ctx), string(ev), mv)
	rec, refused := mv.rec, mv.refused
	*mv = move{} // hold nothing of this move past it
	if refused != nil {
		return events.Transition{}, fmt.Errorf("call %s: record %s: %w", m.id, ev, refused)
	}
	if err != nil {
		return rec, m.fsmError(from, ev, err)
	}
	m.state = State(f.Current())
	return rec, nil
}

// fsmError is looplab's refusal of ev in state from. It is apart from
// Fire so that the targets of errors.As, which escape, are allocated only
// on this path, not on every move.
func (m *Machine) fsmError(from State, ev Event, err error) error {
	var invalid fsm.InvalidEventError
	var unknown fsm.UnknownEventError
	if errors.As(err, &invalid) || errors.As(err, &unknown) {
		return &InvalidTransitionError{CallID: m.id, State: from, Event: ev}
	}
	return fmt.Errorf("call %s: fsm %s: %w", m.id, ev, err)
}
