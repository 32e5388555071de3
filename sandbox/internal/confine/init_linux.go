package confine

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
	"golang.org/x/sys/unix"
)

// forwarded are the signals the helper, as PID 1 of the sandbox's PID
// namespace, passes on to every process in it.
var forwarded = [...]os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}

// runInit is the init: the first stage itself once every one of its
// threads dropped every capability, or the helper re-executed from the
// dropped thread (Landlock, seccomp and no_new_privs pass through execve).
// It reports the layers, closes the setup pipe, and only then runs the
// command as a child. It stays as the namespace's init: it reaps
// orphans, forwards termination signals to every process in the namespace
// (including ones that left the process group), reports how the command
// ended on the exit pipe, and when the command exits, its own exit makes
// the kernel kill whatever is left.
func runInit(spec proto.Spec, argv, env []string, ch *channels, tr *proto.Tracer) int {
	// The first stage dropped them on the thread that exec'ed this one;
	// check rather than trust, while a refusal is still a setup error.
	if err := holdsNoCaps(); err != nil {
		return initFailed(ch, layers.Caps, err)
	}
	if err := checkConfined(); err != nil {
		return initFailed(ch, "init", err)
	}
	// The binary descriptor and anything inherited by mistake stay here;
	// the exit pipe is close-on-exec already.
	if err := proto.CloexecFrom(3); err != nil {
		return initFailed(ch, "fds", err)
	}
	_ = syscall.Close(proto.BinaryFD)
	sigs := make(chan os.Signal, len(forwarded))
	signal.Notify(sigs, forwarded[:]...)
	ch.sendSetup(proto.ReportLine{Kind: proto.ReportLayers, Layers: spec.Layers})
	// From here on the command may exist: nothing it can do reaches the
	// setup pipe, and no failure can make docket try again.
	ch.closeSetup()
	tr.Mark("command.fork")
	pid, err := syscall.ForkExec(spec.Path, argv, &syscall.ProcAttr{
		Dir:   spec.Cwd,
		Env:   env,
		Files: []uintptr{0, 1, 2},
	})
	if err != nil {
		return execFailed(spec.Path, err, ch)
	}
	tr.Mark("command.started")
	// The reaper may run on any thread; the forwarding must not. In the
	// first stage go-landlock restricted each thread on its own, so each
	// has a Landlock domain of its own, and signal scoping (ABI 6+) lets
	// only this locked thread, whose domain the command inherited, signal
	// the command.
	exited := make(chan proto.ReportLine, 1)
	go reapUntil(pid, exited)
	orphaned := make(chan struct{})
	if ch.exit != nil && !proto.LifelineDisabled() {
		go watchLifeline(int(ch.exit.Fd()), orphaned)
	}
	for {
		select {
		case <-orphaned:
			// docket is gone (killed, crashed): nobody will journal what
			// the command does from here, so nothing may go on. Returning
			// ends the init, and the kernel kills the rest of the namespace.
			_ = syscall.Kill(-1, syscall.SIGKILL)
			return proto.ExitSetup
		case s := <-sigs:
			// From PID 1, kill(-1) reaches every other process in the namespace.
			_ = syscall.Kill(-1, s.(syscall.Signal))
		case l := <-exited:
			tr.Mark("command.exit")
			ch.sendExit(l)
			if l.Kind != proto.ReportExit {
				return proto.ExitSetup
			}
			return l.Code
		}
	}
}

// initFailed reports a setup failure of the init, before the command exists.
func initFailed(ch *channels, layer string, err error) int {
	fmt.Fprintf(os.Stderr, "docket sandbox: init: %s: %v\n", layer, err)
	ch.sendSetup(proto.ReportLine{Kind: proto.ReportSetupError, Layer: layer, Error: err.Error()})
	return proto.ExitSetup
}

// checkConfined refuses to run as init unless this process is PID 1 of its
// namespace with no_new_privs and a seccomp filter: an init stage started
// any other way (a spec that says "init" but was never confined) must not
// report layers it does not have.
func checkConfined() error {
	if os.Getpid() != 1 {
		return fmt.Errorf("the init stage runs as pid %d, not 1", os.Getpid())
	}
	if nnp, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); err != nil || nnp != 1 {
		return fmt.Errorf("the init stage runs without no_new_privs (%v)", err)
	}
	if mode, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil || mode != unix.SECCOMP_MODE_FILTER {
		return fmt.Errorf("the init stage runs without a seccomp filter (%v)", err)
	}
	return nil
}

// reapUntil reaps every child (orphans are reparented to init) until pid
// ends, then sends how it ended.
func reapUntil(pid int, exited chan<- proto.ReportLine) {
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			exited <- proto.ReportLine{Kind: proto.ReportInitError, Error: fmt.Sprintf("wait: %v", err)}
			return
		}
		if wpid != pid || !(ws.Exited() || ws.Signaled()) {
			continue
		}
		l := proto.ReportLine{Kind: proto.ReportExit, Code: ws.ExitStatus()}
		if ws.Signaled() {
			l.Signal = int(ws.Signal())
			l.Code = 128 + l.Signal
		}
		exited <- l
		return
	}
}

// watchLifeline closes orphaned once the exit pipe has no reader left,
// which happens only when every copy of docket's read end is closed: docket
// exited or was killed. A pipe's write end polls POLLERR then, without
// anything being written, so the init learns of it at once, whichever of
// docket's threads started it (unlike PR_SET_PDEATHSIG).
func watchLifeline(fd int, orphaned chan<- struct{}) {
	fds := []unix.PollFd{{Fd: int32(fd)}}
	for {
		_, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		// Only the pipe's own word counts: a poll that fails, or a
		// descriptor that is not valid, stops the watch (the parent-death
		// signal remains) rather than kill a command docket still runs.
		if err != nil || fds[0].Revents&unix.POLLNVAL != 0 {
			return
		}
		if fds[0].Revents&unix.POLLERR != 0 {
			close(orphaned)
			return
		}
	}
}
