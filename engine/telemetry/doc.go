// Package telemetry exports a session to OpenTelemetry: each turn a span,
// each tool call a child span with the audit's attributes (policy, sandbox
// mode and layers, outcome, docket.ran_unsandboxed and the why-line), each
// state-machine transition, approval and hook verdict an event.
//
// Everything is built from journal records, through the audit (replay/audit
// Feeder), never from the engine's memory: the journal stays the source of
// truth. Live, Tap hands the records of each successful commit to a bounded
// queue that a goroutine turns into spans; a full queue drops telemetry and
// never blocks the engine. Trace and span ids are derived from the session
// id and the turn's seq or the call's id, so `docket export` re-sending a
// journal produces the same ids (a backend can de-duplicate).
package telemetry
