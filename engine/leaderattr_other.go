//go:build !linux

package engine

import "syscall"

// leaderAttr starts an unsandboxed long-lived process in a session of its
// own; off Linux there is no parent-death signal, so only the tree's kill
// at the session's end ends it.
func leaderAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
