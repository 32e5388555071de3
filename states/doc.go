// Package states holds the tool-call state machine and, in subpackages, the
// pure decision logic that drives it (policy, rules, cmdsafety, approval).
//
// The machine is built on github.com/looplab/fsm but wrapped so that no
// caller can move a call without the transition first being accepted by a
// Sink (the journal): Fire checks the table, hands the transition record to
// the sink, and only then moves the underlying FSM. No looplab callbacks are
// registered, which sidesteps its pitfalls (silently ignored callback names,
// deadlocks when Event is called from a callback).
package states
