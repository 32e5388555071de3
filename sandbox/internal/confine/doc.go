// Package confine is the code that runs inside the sandbox before the
// command's execve: the per-call helper (Main) that docket, or the lean
// docket-sandbox-helper, starts in new namespaces. It shapes the mount
// table (mounts, the stubs and protected paths, docket's binaries, the
// hidden paths, the unix sockets, a devpts of its own, what the git walk
// did not look into), joins the call's cgroup and sets the rlimits, drops
// every capability, sets no_new_privs, applies Landlock, loads the seccomp
// filter docket compiled, and runs the command as the PID namespace's
// init (init_linux.go). The sandbox server (sandbox/internal/server)
// builds each command's confinement from the same pieces.
//
// Nothing here is linked by package sandbox, which docket runs calls
// with: the two sides share only the protocol (sandbox/internal/proto).
// The order of the steps and their reasons are in package sandbox's doc.
package confine
