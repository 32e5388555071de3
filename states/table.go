package states

// State is one of the seven states a tool call can be in.
type State string

// The seven states of DESIGN.md section 2.
const (
	WantsApproval    State = "wantsApproval"
	AwaitingDecision State = "awaitingDecision"
	Sandboxed        State = "sandboxed"
	RetryPrompt      State = "retryPrompt"
	Unsandboxed      State = "unsandboxed"
	Denied           State = "denied"
	Done             State = "done"
)

// Event is a named move of the state machine.
type Event string

// The events of DESIGN.md section 2.
const (
	Ask            Event = "ask"
	RunSandboxed   Event = "run_sandboxed"
	RunUnsandboxed Event = "run_unsandboxed"
	Deny           Event = "deny"
	SandboxDenied  Event = "sandbox_denied"
	Finish         Event = "finish"
	Fail           Event = "fail"
	Interrupt      Event = "interrupt"
)

// Edge is one row of the transition table.
type Edge struct {
	Event Event
	From  []State
	To    State
}

// Table returns the transition table. It is the single definition both the
// running machine and the rendered diagrams are built from.
func Table() []Edge {
	return []Edge{
		{Ask, []State{WantsApproval, RetryPrompt}, AwaitingDecision},
		{RunSandboxed, []State{WantsApproval, AwaitingDecision}, Sandboxed},
		{RunUnsandboxed, []State{WantsApproval, AwaitingDecision, RetryPrompt}, Unsandboxed},
		{Deny, []State{WantsApproval, AwaitingDecision}, Denied},
		{SandboxDenied, []State{Sandboxed}, RetryPrompt},
		{Finish, []State{Sandboxed, Unsandboxed, RetryPrompt, Denied}, Done},
		{Fail, []State{WantsApproval}, Done},
		{Interrupt, []State{AwaitingDecision, Sandboxed, Unsandboxed, RetryPrompt}, Done},
	}
}

// States returns the seven states in a fixed order.
func States() []State {
	return []State{WantsApproval, AwaitingDecision, Sandboxed, RetryPrompt, Unsandboxed, Denied, Done}
}

// Next returns the state that ev leads to from s, and whether the table
// allows it at all. It checks recorded transitions (the audit); a running
// call moves only through Machine.Fire, where looplab decides.
func Next(s State, ev Event) (State, bool) {
	for _, e := range Table() {
		if e.Event != ev {
			continue
		}
		for _, f := range e.From {
			if f == s {
				return e.To, true
			}
		}
	}
	return "", false
}

// Valid reports whether s is one of the seven states.
func (s State) Valid() bool {
	for _, x := range States() {
		if x == s {
			return true
		}
	}
	return false
}

// Terminal reports whether no event leads out of s.
func (s State) Terminal() bool { return s == Done }
