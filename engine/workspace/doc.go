// Package workspace is where the decision logic's view of the disk is read:
// the writable roots of a workspace-write session resolved to where they
// really are, the git directories a `.git` file or symlink points to, and
// where a path a tool would write really leads (symlinks, "..").
//
// The engine calls it and records what it read (the session's sandbox plan
// in session_started, a patch's resolved paths in model_response), so the
// pure decision logic in states/policy judges recorded values and a replay
// reaches the same decisions without the disk.
package workspace
