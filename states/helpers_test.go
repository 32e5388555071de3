package states

// New returns the machine of a new call, in wantsApproval.
func (p *Pool) New(id string, sink Sink) *Machine { return p.Restore(id, WantsApproval, sink) }

// NewMachine returns the machine of call id in wantsApproval, from a pool
// of its own.
func NewMachine(id string, sink Sink) *Machine { return NewPool().New(id, sink) }

// RestoreMachine returns the machine of call id in state s, from a pool of
// its own.
func RestoreMachine(id string, s State, sink Sink) *Machine {
	return NewPool().Restore(id, s, sink)
}

// Events returns the eight events in table order.
func Events() []Event {
	t := Table()
	out := make([]Event, len(t))
	for i, e := range t {
		out[i] = e.Event
	}
	return out
}
