// Package engine runs a session's turns: it asks the model, routes the tool
// calls in its answer, drives each call through the states machine, and
// journals every input and decision before anything depends on it.
//
// Every side effect sits behind a small interface (model.Model, Approver,
// Runner, Clock, Log) so that replay can substitute recorded inputs and a
// comparing log. IDs are derived, never drawn at random: turn ids are
// "turn-N", approval request ids are "<call>/<phase>", so a replay draws
// the same ones.
package engine
