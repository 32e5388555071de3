//go:build !linux

package agentcli

import "syscall"

// lifeline: no parent-death signal off Linux; the deadline and the
// process tree's kill still end the CLI.
func lifeline() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
