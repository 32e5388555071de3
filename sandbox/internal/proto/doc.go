// Package proto is the protocol between docket and the confined side of
// the sandbox: the call's Spec (the wire form of a plan, one JSON argument
// of the helper, and the server's messages), its validation, the report
// lines the helper writes on its setup and exit pipes, the descriptor
// numbers, the exit codes, and the start-up trace both sides write. Both
// package sandbox (docket's side) and sandbox/internal/confine and
// sandbox/internal/server (inside the sandbox) import it; it imports
// neither.
package proto
