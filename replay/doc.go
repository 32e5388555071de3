// Package replay is what the journal is for: verify replay (re-drive the
// engine on recorded inputs and compare every record it writes with the
// journal's), live replay (run the recorded session's commands again in a
// scratch workspace and report drift), and the audit (subpackage audit).
//
// Verify replay compares records per stream: the session's own records in
// order, and each call's records in order. Parallel calls interleave
// differently from run to run, but each call's sequence, and the session's,
// is deterministic; that is what is compared, by whole canonical payload.
// A session_resumed record marks where another process took over: replay
// stops its engine there, as the crash did, restores a session from the
// records before it, and goes on.
package replay
