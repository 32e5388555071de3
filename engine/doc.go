// Package engine runs a session's turns: it asks the model, routes the tool
// calls in its answer, drives each call through the states machine, and
// journals every input and decision before anything depends on it.
//
// Every side effect sits behind a small interface (model.Model, Approver,
// Runner, Clock, Log) so that replay can substitute recorded inputs and a
// comparing log. IDs are derived, never drawn at random: turn ids are
// "turn-N", approval request ids are "<call>/<phase>", so a replay draws
// the same ones.
//
// Subagents: an embedder that registers SpawnAgentTool and sets
// Config.Agents (an AgentHost: where children's journals live and which
// model each child talks to) lets the model start child sessions. Each child
// is a Session of its own, built from the parent's Config with its policy
// and plan narrowed as the call asked; its approval requests go to the
// parent's Approver (ApprovalRequest.Agent names it), its end is the call's
// output, a parked child parks the parent, cancelling the parent's turn
// cancels the children, and Resume of the parent resumes its unfinished
// children. Child ids are derived too (ChildSessionID).
package engine
