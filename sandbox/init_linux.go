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
	go func() {
		for s := range sigs {
			// From PID 1, kill(-1) reaches every other process in the namespace.
			_ = syscall.Kill(-1, s.(syscall.Signal))
		}
	}()
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			rep.send(reportLine{Kind: reportSetupError, Layer: LayerPIDNS, Error: "wait: " + err.Error()})
			return exitSetup
		}
		if wpid != pid || !(ws.Exited() || ws.Signaled()) {
			continue
		}
		l := reportLine{Kind: reportExit, Code: ws.ExitStatus()}
		if ws.Signaled() {
			l.Signal = int(ws.Signal())
			l.Code = 128 + l.Signal
		}
		rep.send(l)
		return l.Code
	}
}
