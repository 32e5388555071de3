// Package initc is the sandbox server's per-command init, in C
// (init_linux.c), and what the server says to it: the clone that starts
// one from a thread of the server (Spawn), the command laid out as the C
// side reads it (Encode, SendCommand), the status it reports before its go
// (ReadStatus), and its reaping.
//
// It runs in the server's process: only the server's side of package
// sandbox calls it (docket links it, being the server's binary). It is the only C in the sandbox; a
// binary built without cgo cannot spawn an init (CanSpawn) and so cannot be
// a server, and a session then starts a helper per call.
package initc
