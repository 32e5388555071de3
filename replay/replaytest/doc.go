// Package replaytest turns a recorded Docket session into a regression test.
//
// Record a session once (any `docket` run writes its journal under
// $DOCKET_HOME/sessions), copy the .docket file under your package's
// testdata/, and call Verify from a test. Verify re-drives Docket's engine
// over the recorded inputs (model responses, approvals, command outcomes),
// runs no command and calls no model, and compares every decision the
// engine makes now with the recorded one, whole payload for payload. A
// change to your rules, your policies or Docket's version that changes a
// decision fails the test at the first record that differs, naming its
// seq, its call and both sides.
//
// By default the rules recorded with the session are used, so the test
// pins Docket's behaviour. CurrentRules replays with the rules files that
// load now instead, so the test pins your rules (what `docket replay
// --rules current` does).
//
// A subagent's records are a session of their own, in a journal of their
// own: commit and verify each journal of the tree.
package replaytest
