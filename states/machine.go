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

// Machine builds calls. It keeps a pool of looplab FSMs so that a session
// of many calls does not build one per call: a call holds its own state,
// and each move borrows an FSM, sets it to that state, and lets looplab
// check and perform the event. Hold one per session; it is safe for
// concurrent use.
type Machine struct {
	pool sync.Pool
}

// NewMachine returns a machine built from Table().
func NewMachine() *Machine {
	m := &Machine{}
	events := descs()
	m.pool.New = func() any { return fsm.NewFSM(string(WantsApproval), events, nil) }
	return m
}

// NewCall returns a call in wantsApproval.
func (m *Machine) NewCall(id string, sink Sink) *Call { return m.Restore(id, WantsApproval, sink) }

// Restore returns a call in state s, as rebuilt from a journal.
func (m *Machine) Restore(id string, s State, sink Sink) *Call {
	return &Call{id: id, state: s, sink: sink, m: m}
}

// Call is the state machine of one tool call.
type Call struct {
	id   string
	sink Sink
	m    *Machine

	mu    sync.Mutex
	state State
}

// NewCall returns a machine for call id in wantsApproval.
func NewCall(id string, sink Sink) *Call { return NewMachine().NewCall(id, sink) }

// Restore returns a machine for call id in state s, as rebuilt from a journal.
func Restore(id string, s State, sink Sink) *Call { return NewMachine().Restore(id, s, sink) }

// ID returns the call id.
func (c *Call) ID() string { return c.id }

// Current returns the call's state.
func (c *Call) Current() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Can reports whether ev is allowed now.
func (c *Call) Can(ev Event) bool {
	_, ok := Next(c.Current(), ev)
	return ok
}

// Fire moves the call by ev. The transition record goes to the sink first;
// only if the sink accepts it does the machine move.
func (c *Call) Fire(ctx context.Context, ev Event, cause Cause, reason string) (events.Transition, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	from := c.state
	to, ok := Next(from, ev)
	if !ok {
		return events.Transition{}, &InvalidTransitionError{CallID: c.id, State: from, Event: ev}
	}
	t := events.Transition{CallID: c.id, From: string(from), Event: string(ev), To: string(to), Cause: string(cause), Reason: reason}
	if c.sink != nil {
		if err := c.sink.RecordTransition(t); err != nil {
			return events.Transition{}, fmt.Errorf("call %s: record %s: %w", c.id, ev, err)
		}
	}
	f := c.m.pool.Get().(*fsm.FSM)
	defer c.m.pool.Put(f)
	f.SetState(string(from))
	// The transition is on record now, so it must happen: looplab/fsm skips
	// the move (and stays mid-transition) when its context is cancelled.
	if err := f.Event(context.WithoutCancel(ctx), string(ev)); err != nil {
		var nt fsm.NoTransitionError
		if !errors.As(err, &nt) {
			return t, fmt.Errorf("call %s: fsm %s: %w", c.id, ev, err)
		}
	}
	if got := State(f.Current()); got != to {
		return t, fmt.Errorf("call %s: fsm moved %s to %s on %s, the table says %s", c.id, from, got, ev, to)
	}
	c.state = to
	return t, nil
}
