// Package states holds the tool-call state machine and, in subpackages, the
// pure decision logic that drives it (policy, rules, cmdsafety, approval).
//
// Who owns what:
//
//   - Table() is the one definition of the states, events and moves
//     (DESIGN.md section 2). Everything else is built from it: looplab's
//     event descriptions, the Mermaid and dot diagrams (`docket fsm`,
//     docs/fsm.md, checked by a test), and Next.
//   - github.com/looplab/fsm performs every move of a running call: a
//     Machine's Fire lends a pooled looplab FSM the call's state, and looplab
//     decides whether the event is allowed and which state it leads to.
//   - The journal sees each transition before the call moves: looplab's
//     before_event callback (the only callback registered) builds the
//     transition record from looplab's source and destination and hands it
//     to the Sink; a Sink error cancels the move, and the machine stays.
//   - Next is the table lookup without a machine. It never moves a call:
//     the audit uses it to check that a recorded transition is one the
//     table allows.
//
// A Pool holds the looplab FSMs of a session (one per concurrent move, not
// one per call); a Machine is one call's state machine.
package states
