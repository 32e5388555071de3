// Package sandboxd is the sandbox daemon's side of the wire the docket
// front binary speaks: the one request and one result that cross the
// socket, who may ask, and a Go client of the same wire.
//
// `docket sandbox` is one process per call, so nothing a session keeps (the
// sandbox server that built the namespaces, the git walk of the writable
// roots) survives from one call to the next, and the full docket binary
// spends most of its start-up in package initialisers. The front binary
// (cmd/docket/front, C, installed as docket) is small: for `docket sandbox` it
// hands its arguments, working directory, environment and output streams
// to a per-user daemon (`docket-core sandbox-daemon`), which runs the same
// command code with a kept sandbox server and git walk; everything else,
// and a sandbox call nobody serves, is docket-core itself (exec).
package sandboxd

// ExitSandboxFailed is `docket sandbox`'s status when the sandbox itself
// failed or the call was not run (the env(1)/timeout(1) convention); the
// front binary gives it too when the daemon fails a call.
const ExitSandboxFailed = 125
