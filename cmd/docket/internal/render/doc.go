// Package render turns the engine's notices into what a user or a program
// reads: JSONL in the schema of Codex's `exec --json` (plus Docket's
// call.transition, approval.requested, session.parked, context.warning and
// context.compacted events), or
// human-readable progress on stderr with the final message on stdout.
package render
