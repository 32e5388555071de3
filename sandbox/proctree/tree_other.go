//go:build !linux

package proctree

import (
	"os/exec"
	"sync"
	"syscall"
)

// Tree is one command's processes. Outside Linux there is no cgroup: the
// process group is all there is, and a child that calls setsid escapes it.
type Tree struct {
	pid    int
	mu     sync.Mutex
	reaped bool
}

// New prepares a tree; outside Linux it is the process group.
func New(Options) *Tree { return &Tree{} }

// Mechanism is what finds the tree's processes: the process group.
func (t *Tree) Mechanism() Mechanism { return ProcessGroup }

// Start starts the command build returns in a process group of its own.
func (t *Tree) Start(build func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := build()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if !cmd.SysProcAttr.Setsid {
		cmd.SysProcAttr.Setpgid = true
	}
	if err := cmd.Start(); err != nil {
		return cmd, err
	}
	t.pid = cmd.Process.Pid
	return cmd, nil
}

// MarkReaped records that the leader was reaped; its group is no longer
// signalled.
func (t *Tree) MarkReaped() {
	t.mu.Lock()
	t.reaped = true
	t.mu.Unlock()
}

// Signal sends sig to the process group.
func (t *Tree) Signal(sig syscall.Signal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.reaped && t.pid > 0 {
		_ = syscall.Kill(-t.pid, sig) // ESRCH: the group is empty
	}
}

// Kill sends SIGKILL to the process group.
func (t *Tree) Kill() error {
	t.Signal(syscall.SIGKILL)
	return nil
}

// Wait waits for cmd and then kills what is left of its group. Without
// waitid's WNOWAIT the leader cannot be waited for unreaped, so a leftover
// holding the output pipes open delays Wait until cmd.WaitDelay.
func (t *Tree) Wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	// The group outlives its leader while a member is left, so its id
	// still names it.
	_ = syscall.Kill(-t.pid, syscall.SIGKILL) // ESRCH: none is left
	t.MarkReaped()
	return err
}

// Close kills what is left of the process group.
func (t *Tree) Close() error { return t.Kill() }
