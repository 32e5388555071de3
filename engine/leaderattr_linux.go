package engine

import "syscall"

// leaderAttr starts an unsandboxed long-lived process in a session of its
// own, with a parent-death signal: a killed docket takes the leader with
// it; the tree's kill at the session's end takes the rest.
func leaderAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
