// Package audit answers, from a session's journal alone, what every tool
// call did and why: the chain of state-machine transitions with their
// causes, the approval decisions (who, when), the sandbox layers enforced,
// the denial evidence, and — for each call that ran without a sandbox — one
// line saying why that was allowed (DESIGN.md section 5).
//
// The journal is streamed: a call's summary is kept only while the call is
// open and is handed to a Sink as soon as it (and every call that started
// before it) is finished, so auditing a journal of any length holds only
// the calls in flight. The session's events (compactions, prompts with
// attachments) wait in the same queue, so they reach a sink in journal
// order among the calls; the JSON writer keeps them, one small entry each,
// for the "events" array after the calls. A single call is read through
// the journal's call index, not by a scan. A damaged tail does not stop
// the audit: every good record is audited and the report says where
// reading stopped.
//
// While auditing, the package re-checks the invariants a journal can show:
// that a call reached unsandboxed only with a cause that justifies it
// (invariant 3), that an execution had its write-ahead transition
// (invariant 1), that every transition is in the table and starts where the
// call was (invariant 6), and that a time-out was not recorded as a user
// denial (invariant 5). Breaches are listed as violations, never hidden.
package audit
