package proctree

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Tree is one command's processes: New prepares it, Start starts the
// command in it, Kill ends every process in it, Close ends them and
// removes what New made. Kill and Signal may be called from any goroutine,
// during Start too (exec.Cmd.Cancel).
type Tree struct {
	mu     sync.Mutex
	mech   Mechanism
	cg     *Leaf // nil when the process group is all there is
	pid    int   // the leader, once started
	reaped bool  // the leader was reaped: its pid may name another group now
	closed bool
}

// New prepares a tree with the strongest mechanism opts allow and this
// machine gives: a leaf cgroup (v2, else v1's freezer hierarchy) under
// docket's own, which needs write access to the cgroup file system (root,
// or a delegated cgroup), else the process group. Start may still fall
// back to the process group; Mechanism tells after it. Close it when done.
func New(opts Options) *Tree {
	t := &Tree{mech: ProcessGroup}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return t
	}
	if opts.allows(CgroupV2) {
		if l := newLeafV2(own, opts.freezeV2); l != nil {
			t.mech, t.cg = CgroupV2, l
			return t
		}
	}
	if opts.allows(CgroupV1) {
		if l := newLeafV1(own); l != nil {
			t.mech, t.cg = CgroupV1, l
		}
	}
	return t
}

// Mechanism is what finds the tree's processes; after Start, what held.
func (t *Tree) Mechanism() Mechanism {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mech
}

// Start starts the command build returns, in its own process group (its
// own session when SysProcAttr asks for one) and in the tree's cgroup.
// When the kernel refuses the cgroup (no clone3, a seccomp profile, a
// leaf it will not take) the tree falls back to the process group and
// build is called once more for a fresh, unstarted command.
func (t *Tree) Start(build func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := build()
	t.mu.Lock()
	cg := t.cg
	t.mu.Unlock()
	if cg != nil {
		// Joining on v1 moves this thread only: it must be the one that
		// forks, and must not change under us.
		runtime.LockOSThread()
		err := cg.start(cmd, ownGroup(cmd))
		runtime.UnlockOSThread()
		if err == nil {
			t.started(cmd.Process.Pid, cg)
			return cmd, nil
		}
		if errors.Is(err, errStuck) {
			// Started, but this thread could not leave the leaf: freezing
			// or killing the leaf could then reach docket itself, so the
			// leaf is left alone (and left behind).
			t.started(cmd.Process.Pid, nil)
			return cmd, nil
		}
		_ = cg.Remove() // empty: nothing started in it
		t.started(0, nil)
		cmd = build()
	}
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return cmd, err
	}
	t.started(cmd.Process.Pid, nil)
	return cmd, nil
}

// started records the leader and the leaf that holds it (nil: the process
// group alone).
func (t *Tree) started(pid int, cg *Leaf) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pid, t.cg = pid, cg
	if cg == nil {
		t.mech = ProcessGroup
	}
}

// cgroup is the tree's leaf, nil when it has none.
func (t *Tree) cgroup() *Leaf {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cg
}

// ownGroup gives cmd a process group of its own and returns its attributes.
func ownGroup(cmd *exec.Cmd) *syscall.SysProcAttr {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if !cmd.SysProcAttr.Setsid {
		cmd.SysProcAttr.Setpgid = true
	}
	return cmd.SysProcAttr
}

// MarkReaped records that the leader was reaped, after which its process
// group is no longer signalled (its pid may be another process's by then);
// a cgroup is still signalled.
func (t *Tree) MarkReaped() {
	t.mu.Lock()
	t.reaped = true
	t.mu.Unlock()
}

// Signal sends sig to every process of the tree, without freezing it (a
// SIGTERM that lets them clean up; Kill is what makes sure).
func (t *Tree) Signal(sig syscall.Signal) {
	t.signalGroup(sig)
	if cg := t.cgroup(); cg != nil {
		for _, p := range cg.members() {
			_ = unix.Kill(p, sig) // ESRCH: it exited meanwhile
		}
	}
}

func (t *Tree) signalGroup(sig syscall.Signal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.reaped && t.pid > 0 {
		_ = syscall.Kill(-t.pid, sig) // ESRCH: the group is empty
	}
}

// Kill sends SIGKILL to every process of the tree; on a cgroup it covers
// those that left the process group, and new ones forked meanwhile. It
// does not wait for them to be gone (Close does).
func (t *Tree) Kill() error {
	t.signalGroup(syscall.SIGKILL)
	if cg := t.cgroup(); cg != nil {
		return cg.kill()
	}
	return nil
}

// Wait waits for the leader to exit without reaping it (so its pid, the
// group's id, stays its own), kills the rest of the tree, and then waits
// for cmd as exec.Cmd.Wait does: a leftover that holds the command's
// output pipes open is gone by then, so Wait does not hang on it.
func (t *Tree) Wait(cmd *exec.Cmd) error {
	waitExitedNoReap(cmd.Process.Pid)
	_ = t.Kill() // best effort here; Close reports what is left
	t.MarkReaped()
	return cmd.Wait()
}

// Close kills what is left of the tree, waits (bounded) until its cgroup is
// empty and removes it. An error names what could not be ended or removed.
// It is idempotent.
func (t *Tree) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	cg := t.cg
	t.mu.Unlock()
	kerr := t.Kill()
	if cg == nil {
		return nil
	}
	// What the kill could not end shows here; a slow exit does not.
	if werr := cg.waitEmpty(); werr != nil {
		return errors.Join(kerr, werr)
	}
	return cg.Remove()
}

// waitExitedNoReap blocks until pid has exited, leaving it a zombie.
func waitExitedNoReap(pid int) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// errStuck: the command started but the forking thread stayed in the leaf.
var errStuck = errors.New("proctree: the forking thread could not leave the call's cgroup")

// wrapStart says which start failed.
func wrapStart(m Mechanism, err error) error {
	return fmt.Errorf("proctree: starting in a %s leaf: %w", m, err)
}
