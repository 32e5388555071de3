package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/proctree"
	"golang.org/x/sys/unix"
)

// launch is one process to start: the command itself, or the helper.
type launch struct {
	path string
	args []string
	env  []string
	dir  string
	sys  *syscall.SysProcAttr
	// extra are passed as fds 3.. and closed in the parent once started.
	extra []*os.File
	// narrow starts it from a thread with a narrowed bounding set (a root
	// helper; see startNarrowed).
	narrow bool
	// tree starts it in a proctree.Tree, so that children that left its
	// process group die with it too: an unsandboxed command, which has no
	// PID namespace to take them down.
	tree bool
}

// startError is a failure to start the process at all (fork, exec, clone).
type startError struct{ err error }

func (e *startError) Error() string { return "starting process: " + e.err.Error() }
func (e *startError) Unwrap() error { return e.err }

// runProcess starts l in its own session and process group with stdin from
// /dev/null, captures both streams, enforces the timeout on the whole group
// (SIGTERM, then SIGKILL after the grace period) and, once the leader has
// exited, kills what is left of the group so nothing outlives the call.
// With l.tree the same goes for the command's proctree, which also holds
// the processes that left the group, and the outcome's layers say which
// mechanism held.
func runProcess(ctx context.Context, req Request, l launch) (events.ExecOutcome, error) {
	var out events.ExecOutcome
	closeExtra := func() {
		for _, f := range l.extra {
			_ = f.Close() // the child holds its own copy; Linux frees ours even when close fails
		}
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		closeExtra()
		return out, fmt.Errorf("opening %s: %w", os.DevNull, err)
	}
	defer func() { _ = devnull.Close() }() // read-only: nothing to flush, and Linux frees the fd even when close fails
	stdin := devnull
	if req.Stdin != nil {
		r, w, err := os.Pipe()
		if err != nil {
			closeExtra()
			return out, fmt.Errorf("stdin pipe: %w", err)
		}
		// The writer ends when the input is written or when the last
		// reader is gone (EPIPE): at the latest when this function closes
		// r, after the process group has been reaped.
		go func() {
			_, _ = w.Write(req.Stdin) // a command that does not read its input is not an error
			_ = w.Close()
		}()
		defer func() { _ = r.Close() }() // read end: nothing to flush
		stdin = r
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeExtra()
		return out, fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeExtra()
		// Error path: nothing was written to these; the error returned is the one to report.
		_ = outR.Close()
		_ = outW.Close()
		return out, fmt.Errorf("stderr pipe: %w", err)
	}
	// Read ends: nothing to lose (drained before return).
	defer func() { _ = outR.Close() }()
	defer func() { _ = errR.Close() }()
	sys := l.sys
	if sys == nil {
		sys = &syscall.SysProcAttr{}
	}
	// A new session: its own process group for the kill, and no
	// controlling terminal to read from or inject into.
	sys.Setsid = true
	// When docket dies (kill -9 included) the process dies with it: a
	// command must never run on, or write, after the session that
	// journaled it is gone. The signal fires when the forking thread ends,
	// so this goroutine holds its thread until the process is reaped
	// (startNarrowed keeps its own). A PID namespace's init also watches
	// the exit pipe (watchLifeline), which takes the whole tree down.
	if !proto.LifelineDisabled() {
		sys.Pdeathsig = syscall.SIGKILL
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	newCmd := func() *exec.Cmd {
		return &exec.Cmd{
			Path: l.path, Args: l.args, Env: l.env, Dir: l.dir,
			Stdin: stdin, Stdout: outW, Stderr: errW,
			ExtraFiles: l.extra, SysProcAttr: sys,
		}
	}
	cmd := newCmd()
	var tree *proctree.Tree
	if l.tree {
		tree = proctree.New(req.tree)
	}
	// Descriptors docket inherited without close-on-exec (a shell's
	// redirection, a jobserver, a socket from a supervisor) would pass to
	// the command: mark every one above 2 close-on-exec. Go opens its own
	// close-on-exec, and the child dups l.extra to 3.. without the flag.
	if err := proto.CloexecFrom(3); err != nil {
		closeExtra()
		// Error path: nothing was written to these; the error returned is the one to report.
		_ = outW.Close()
		_ = errW.Close()
		return out, fmt.Errorf("marking inherited descriptors close-on-exec: %w", err)
	}
	start := time.Now()
	req.trace.Mark("spawn.prepare")
	var dies string // what ends an unsandboxed command's processes with docket
	if l.narrow {
		var release func()
		release, err = startNarrowed(cmd)
		defer release()
	} else if tree != nil {
		cmd, err = tree.Start(newCmd)
		// The parent-death signal reaches the leader alone: say so
		// (outlive_linux.go).
		dies = LayerDiesLeaderOnly
	} else {
		err = cmd.Start()
	}
	// Our copies of the write ends: the child holds its own; closing ours lets
	// the reads see EOF, and Linux frees the fds even when close fails.
	_ = outW.Close()
	_ = errW.Close()
	closeExtra()
	if err != nil {
		if tree != nil {
			_ = tree.Close() // nothing started in it
		}
		return out, &startError{err: err}
	}
	req.trace.Mark("clone")
	pid := cmd.Process.Pid

	col := newCollector(req.outputCap(), req.OnOutput)
	var readers sync.WaitGroup
	readers.Add(2)
	go col.pump("stdout", outR, &readers)
	go col.pump("stderr", errR, &readers)

	g := &group{pid: pid, tree: tree}
	exited := make(chan struct{})
	watchdogDone := make(chan struct{})
	go func() {
		defer close(watchdogDone)
		g.watch(ctx, req.Timeout, req.killGrace(), exited)
	}()

	// Wait for the leader without reaping it, so that its pid (the group's
	// id) cannot be reused while the rest of the group is killed. A
	// tree's leftovers die here too, so that none holds the output pipes.
	waitExitedNoReap(pid)
	req.trace.Mark("helper.exit")
	g.kill(syscall.SIGKILL)
	g.markReaped()
	waitErr := cmd.Wait()
	out.DurationNs = time.Since(start).Nanoseconds()
	close(exited)
	<-watchdogDone
	var treeErr error
	if tree != nil {
		treeErr = tree.Close()
	}

	drain(&readers, outR, errR)
	req.trace.Mark("reap")
	fillStatus(&out, cmd.ProcessState)
	if waitErr != nil && cmd.ProcessState == nil {
		return out, fmt.Errorf("waiting for process: %w", waitErr)
	}
	out.Stdout = col.stdout.String()
	out.Stderr = col.stderr.String()
	out.Output = col.combined.String()
	out.Truncated = col.stdout.truncated() || col.stderr.truncated() || col.combined.truncated()
	switch {
	case treeErr != nil:
		// The layer would claim every process died: say what is left.
		msg := "docket: " + treeErr.Error() + "\n"
		out.Stderr += msg
		out.Output += msg
	case tree != nil:
		out.Layers = append(out.Layers, tree.Mechanism().Layer())
	}
	if dies != "" {
		out.Layers = append(out.Layers, dies)
	}
	g.mu.Lock()
	out.TimedOut = g.timedOut
	cancelled := g.cancelled
	g.mu.Unlock()
	if cancelled {
		return out, fmt.Errorf("command cancelled: %w", ctx.Err())
	}
	return out, nil
}

// group signals a process group until its leader has been reaped.
type group struct {
	pid int
	// signal, when set, replaces signalling the process group (a command
	// of the sandbox server: its init, through a pidfd).
	signal func(syscall.Signal)
	// tree, when set, replaces signalling the process group: it signals
	// the group until the leader is reaped, and its cgroup, if it has one,
	// before and after.
	tree      *proctree.Tree
	mu        sync.Mutex
	reaped    bool
	timedOut  bool
	cancelled bool
}

func (g *group) kill(sig syscall.Signal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tree != nil {
		if sig == syscall.SIGKILL {
			_ = g.tree.Kill() // best effort here; Close reports what is left
		} else {
			g.tree.Signal(sig)
		}
		return
	}
	if g.reaped {
		return
	}
	if g.signal != nil {
		g.signal(sig)
		return
	}
	_ = syscall.Kill(-g.pid, sig)
}

func (g *group) markReaped() {
	g.mu.Lock()
	g.reaped = true
	if g.tree != nil {
		g.tree.MarkReaped()
	}
	g.mu.Unlock()
}

// watch ends the group on timeout or cancellation: SIGTERM, then SIGKILL
// after grace unless the leader exits first.
func (g *group) watch(ctx context.Context, timeout, grace time.Duration, exited <-chan struct{}) {
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-exited:
		return
	case <-timer:
		g.mu.Lock()
		g.timedOut = true
		g.mu.Unlock()
	case <-ctx.Done():
		g.mu.Lock()
		g.cancelled = true
		g.mu.Unlock()
	}
	g.kill(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exited:
	case <-t.C:
		g.kill(syscall.SIGKILL)
	}
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

// drain waits for the output readers; a process that left the group (and
// so survived the kill) may hold a pipe open, so reading stops after
// drainDelay.
func drain(readers *sync.WaitGroup, files ...*os.File) {
	done := make(chan struct{})
	go func() {
		readers.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-time.After(drainDelay):
	}
	for _, f := range files {
		_ = f.SetReadDeadline(time.Now())
	}
	<-done
}

// fillStatus records exit code and signal; a signal gives 128+n as shells do.
func fillStatus(out *events.ExecOutcome, ps *os.ProcessState) {
	if ps == nil {
		out.ExitCode = -1
		return
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		out.Signal = unix.SignalName(ws.Signal())
		out.ExitCode = 128 + int(ws.Signal())
		return
	}
	out.ExitCode = ps.ExitCode()
}
