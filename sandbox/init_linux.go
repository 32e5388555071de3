package sandbox

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// forwarded are the signals the helper, as PID 1 of the sandbox's PID
// namespace, passes on to every process in it.
var forwarded = [...]os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}

// runInit runs the command as a child and stays as the namespace's init:
// it reaps orphans, forwards termination signals to every process in the
// namespace (including ones that left the process group), and when the
// command exits, its own exit makes the kernel kill whatever is left.
func runInit(spec helperSpec, argv, env []string, rep reporter) int {
	sigs := make(chan os.Signal, len(forwarded))
	signal.Notify(sigs, forwarded[:]...)
	pid, err := syscall.ForkExec(spec.Path, argv, &syscall.ProcAttr{
		Dir:   spec.Cwd,
		Env:   env,
		Files: []uintptr{0, 1, 2},
	})
	if err != nil {
		return execFailed(spec.Path, err, rep)
	}
	// The reaper may run on any thread; the forwarding must not. go-landlock
	// restricts each thread on its own, so every thread has a Landlock
	// domain of its own, and signal scoping (ABI 6+) lets only this locked
	// thread, whose domain the command inherited, signal the command.
	exited := make(chan reportLine, 1)
	go reapUntil(pid, exited)
	for {
		select {
		case s := <-sigs:
			// From PID 1, kill(-1) reaches every other process in the namespace.
			_ = syscall.Kill(-1, s.(syscall.Signal))
		case l := <-exited:
			rep.send(l)
			if l.Kind == reportSetupError {
				return exitSetup
			}
			return l.Code
		}
	}
}

// reapUntil reaps every child (orphans are reparented to init) until pid
// ends, then sends how it ended.
func reapUntil(pid int, exited chan<- reportLine) {
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			exited <- reportLine{Kind: reportSetupError, Layer: LayerPIDNS, Error: "wait: " + err.Error()}
			return
		}
		if wpid != pid || !(ws.Exited() || ws.Signaled()) {
			continue
		}
		l := reportLine{Kind: reportExit, Code: ws.ExitStatus()}
		if ws.Signaled() {
			l.Signal = int(ws.Signal())
			l.Code = 128 + l.Signal
		}
		exited <- l
		return
	}
}
