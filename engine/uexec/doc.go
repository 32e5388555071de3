// Package uexec holds a session's long-lived processes (Codex's "unified
// exec"): the processes exec_command left running, each under the session
// id the model writes to with write_stdin. A Table owns what it started:
// the output each process produced since it was last polled (bounded), its
// exit, and the kill that ends its whole process tree. It decides nothing
// and writes no journal: the engine journals every byte written and every
// chunk returned, and replay never reaches this package.
package uexec
