package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/proctree"
	"golang.org/x/sys/unix"
)

// launch runs the call on the session's server for its plan where the
// machine gives a server its strongest setup (root, or user namespaces),
// and through PerCall otherwise: a nil Servers, a server that could not
// be had, a command too large for one message.
func (s *Servers) launch(ctx context.Context, c call) (events.ExecOutcome, error) {
	if s != nil && (c.caps.Root || c.caps.UserNamespaces) {
		out, ok, err := s.runViaServer(ctx, c.req, c.p, c.spec, c.caps.Root)
		var gone *stubVanishedError
		for try := 0; ok && try < maxStubRetries && errors.As(err, &gone); try++ {
			// Nothing ran: hold again (a fresh stub) and send it again.
			out, ok, err = s.runViaServer(ctx, c.req, c.p, c.spec, c.caps.Root)
		}
		if ok {
			return out, err
		}
	}
	return PerCall{}.launch(ctx, c)
}

// runViaServer runs one command through the session's server for its
// plan. ok is false when no server could be had for the plan (this binary
// cannot be one, the namespaces were refused): the caller then starts a
// helper of the command's own, which is as strong. Once a server took
// the command, any failure is this call's error, never a weaker retry.
func (s *Servers) runViaServer(ctx context.Context, req Request, p prepared, spec Spec, root bool) (out events.ExecOutcome, ok bool, err error) {
	base := serverBase(spec, root)
	sv, err := s.get(req, base)
	req.trace.Mark("server.get")
	if err != nil {
		return out, false, nil
	}
	defer sv.use(-1)
	// The cgroup leaf is made while the stubs are held: both are
	// a few file-system calls that do not depend on each other.
	cgc := make(chan *proctree.Leaf, 1)
	go func() { cgc <- newCallCgroup(p.plan.Limits) }()
	spec, release, err := holdStubs(req, spec)
	cg := <-cgc
	if err != nil {
		_ = cg.Remove() // made for a call that will not run
		return out, true, err
	}
	req.trace.Mark("stubs.hold")
	// The stubs go before the call returns: an empty .git left in
	// the workspace even for a moment is something the user (or the next
	// unsandboxed command) could see. The empty cgroup leaf is nobody's
	// business: it is removed off the call's path, and Close waits for it.
	defer func() {
		release()
		req.trace.Mark("stubs.release")
		s.later(func() {
			_ = cg.Remove() // a leaf left behind holds no process and no limit that matters
		})
	}()
	var cgFiles []*os.File
	if cg != nil {
		for _, f := range cg.Procs() {
			fh, err := os.OpenFile(f, os.O_WRONLY, 0)
			if err != nil {
				break
			}
			cgFiles = append(cgFiles, fh)
		}
		if len(cgFiles) == len(cg.Procs()) {
			spec.Limits.Cgroup = cg.Layer()
		}
	}
	defer func() {
		for _, f := range cgFiles {
			_ = f.Close() // write-only, written by the init: ours carry nothing
		}
	}()
	req.trace.Mark("cgroup.make")
	defer func() {
		out.Killed = killedBy(out, p.plan.Limits, cg.OOMKills())
	}()
	out, err = runOnServer(ctx, req, sv, spec, p.env, cgFiles)
	if errors.Is(err, unix.EMSGSIZE) {
		// An argv and environment larger than one datagram: this command
		// gets a helper of its own (its exec will judge the size).
		return out, false, nil
	}
	var gone *serverGoneError
	if errors.As(err, &gone) {
		// The server died between calls (nothing was started): one more
		// try, with a fresh one.
		req.trace.Mark("server.retry")
		if sv2, gerr := s.get(req, base); gerr == nil {
			defer sv2.use(-1)
			out, err = runOnServer(ctx, req, sv2, spec, p.env, cgFiles)
		}
	}
	if errors.As(err, &gone) {
		out.SandboxError = err.Error()
		err = fmt.Errorf("sandbox: %w", err)
	}
	return out, true, err
}

// runOnServer sends the command with its streams and waits for its end.
func runOnServer(ctx context.Context, req Request, sv *server, spec Spec, env []string, cgFiles []*os.File) (events.ExecOutcome, error) {
	var out events.ExecOutcome
	// Every descriptor handed over is ours to close once sent.
	var handed []*os.File
	closeHanded := func() {
		for _, f := range handed {
			_ = f.Close() // the server has its copy; Linux frees ours even when close fails
		}
		handed = nil
	}
	defer closeHanded()
	stdin, err := commandStdin(req)
	if err != nil {
		return out, err
	}
	handed = append(handed, stdin)
	outR, outW, err := os.Pipe()
	if err != nil {
		return out, fmt.Errorf("stdout pipe: %w", err)
	}
	defer func() { _ = outR.Close() }() // read end: drained before return
	handed = append(handed, outW)
	errR, errW, err := os.Pipe()
	if err != nil {
		return out, fmt.Errorf("stderr pipe: %w", err)
	}
	defer func() { _ = errR.Close() }() // read end: drained before return
	handed = append(handed, errW)
	exitR, exitW, err := os.Pipe()
	if err != nil {
		return out, fmt.Errorf("exit pipe: %w", err)
	}
	defer func() { _ = exitR.Close() }() // read end: closing it is also the init's signal that docket is gone
	handed = append(handed, exitW)
	fds := []int{int(stdin.Fd()), int(outW.Fd()), int(errW.Fd()), int(exitW.Fd())}
	for _, f := range cgFiles {
		fds = append(fds, int(f.Fd()))
	}
	// A gated call's go travels on a pipe of its own, read by the
	// server's thread for the init: one byte once the gate opens, end of
	// file if it is abandoned (or docket dies meanwhile).
	var goW *os.File
	if req.Gate != nil {
		goR, w, err := os.Pipe()
		if err != nil {
			return out, fmt.Errorf("go pipe: %w", err)
		}
		goW = w
		defer func() { _ = goW.Close() }() // closed already once the gate decided; this covers the early returns
		handed = append(handed, goR)
		fds = append(fds, int(goR.Fd()))
	}
	cs := spec.CallSpec
	// The cgroup files travel as descriptors, and a command of a server
	// has no RLIMIT_NPROC (its user namespace is the session's).
	cs.Limits = proto.Limits{CPUSeconds: spec.Limits.CPUSeconds, FileSizeBytes: spec.Limits.FileSizeBytes, Cgroup: spec.Limits.Cgroup}
	cmd := proto.ServerCommand{CallSpec: cs, Argv: req.Argv, Env: env, Cgroups: len(cgFiles), NoLifeline: proto.LifelineDisabled(),
		Gated: goW != nil}
	start := time.Now()
	req.trace.Mark("spawn.prepare")
	id, call, err := sv.send(cmd, fds)
	if errors.Is(err, unix.EMSGSIZE) {
		closeHanded()
		return out, err
	}
	if err != nil {
		closeHanded()
		return out, &serverGoneError{err: err}
	}
	closeHanded()
	defer sv.forget(id)
	// The server sets the command up while the gate is closed; the go is
	// written as soon as it opens (the server's thread reads it after
	// its started reply), so that the command starts without another
	// round trip through docket.
	var gateErr error
	if goW != nil {
		req.Gate.whenOpen(func() {
			_, _ = goW.Write([]byte{'g'}) // a server gone meanwhile is told by waitStarted
		})
		gateErr = req.Gate.wait(ctx)
		_ = goW.Close() // the go given, or end of file: the init never starts the command
		req.trace.Mark("gate")
		start = time.Now()
	}

	col := newCollector(req.outputCap(), req.OnOutput)
	var readers sync.WaitGroup
	readers.Add(2)
	go col.pump("stdout", outR, &readers)
	go col.pump("stderr", errR, &readers)
	finish := func() {
		drain(&readers, outR, errR)
		out.Stdout = col.stdout.String()
		out.Stderr = col.stderr.String()
		out.Output = col.combined.String()
		out.Truncated = col.stdout.truncated() || col.stderr.truncated() || col.combined.truncated()
		out.DurationNs = time.Since(start).Nanoseconds()
	}

	m, err := waitStarted(sv, call)
	req.trace.Mark("server.started")
	if gateErr != nil {
		return abandonOnServer(m, err, exitR, finish, gateErr)
	}
	if err != nil {
		// The server died before it said the command started, so it never
		// gave the go: an init it may have cloned exits without running
		// the command. Nothing ran; the caller may try another server.
		_ = exitR.Close()
		finish()
		return out, &serverGoneError{err: err}
	}
	if m.reply.Kind == proto.ServerSetupError {
		closeFDs(m.fds)
		finish()
		out.SandboxError = m.reply.Error
		out.ExitCode = proto.ExitSetup
		if hint := hintFor(m.reply.Layer); hint != "" {
			return out, &UnavailableError{Missing: []string{m.reply.Layer}, Hint: hint, Err: errors.New(m.reply.Error)}
		}
		return out, asStubVanished(m.reply.Layer, spec, fmt.Errorf("sandbox: server setup failed (%s): %s", m.reply.Layer, m.reply.Error))
	}
	if len(m.fds) != 1 {
		closeFDs(m.fds)
		_ = exitR.Close()
		finish()
		out.SandboxError = "sandbox server: a started reply without its pidfd"
		return out, errors.New(out.SandboxError)
	}
	pidfd := m.fds[0]
	defer func() { _ = unix.Close(pidfd) }() // a pidfd: nothing to flush
	out.Layers = m.reply.Layers

	g := &group{signal: func(sig syscall.Signal) { _ = pidfdSignal(pidfd, sig) }}
	exited := make(chan struct{})
	watchdogDone := make(chan struct{})
	go func() {
		defer close(watchdogDone)
		g.watch(ctx, req.Timeout, req.killGrace(), exited)
	}()
	// The exit pipe reaches EOF when the init is gone: it is the only
	// holder of the write end.
	exit := readExit(exitR)
	req.trace.Mark("init.exit")
	g.markReaped()
	close(exited)
	<-watchdogDone
	status := -1
	if exit.line == nil {
		// No word from the init (killed: a timeout, the OOM killer): its
		// wait status, which the server reaps, says how it ended.
		select {
		case d := <-call.done:
			closeFDs(d.fds)
			status = d.reply.Status
		case <-sv.dead:
		}
	}
	req.trace.Mark("server.done")
	finish()
	req.trace.Mark("reap")
	if status >= 0 {
		ws := unix.WaitStatus(status)
		if ws.Signaled() {
			out.Signal = unix.SignalName(ws.Signal())
			out.ExitCode = 128 + int(ws.Signal())
		} else {
			out.ExitCode = ws.ExitStatus()
		}
	} else {
		out.ExitCode = -1
	}
	g.mu.Lock()
	out.TimedOut = g.timedOut
	cancelled := g.cancelled
	g.mu.Unlock()
	switch {
	case exit.bad != nil:
		out.SandboxError = exit.bad.Error()
		return out, fmt.Errorf("sandbox: server: %w", exit.bad)
	case exit.line != nil && (exit.line.Kind == proto.ReportExit || exit.line.Kind == proto.ReportExecError):
		out.ExitCode = exit.line.Code
		out.Signal = ""
		if exit.line.Signal != 0 {
			out.Signal = unix.SignalName(syscall.Signal(exit.line.Signal))
		}
	case exit.line != nil:
		out.SandboxError = "sandbox init: " + exit.line.Error
		return out, fmt.Errorf("sandbox: %s", out.SandboxError)
	case status < 0:
		out.SandboxError = fmt.Sprintf("the sandbox server exited while the command ran (%v)", sv.deadErr())
		return out, fmt.Errorf("sandbox: %s", out.SandboxError)
	}
	if cancelled {
		return out, fmt.Errorf("command cancelled: %w", ctx.Err())
	}
	return out, nil
}

// abandonOnServer ends a gated call whose gate did not open: the server
// never gave its init the go, so the command never started. The init is
// killed all the same (it is at most waiting for a go that cannot come),
// and the call returns only once it is gone, its exit pipe at end of
// file: the stubs are released after that, by the caller.
func abandonOnServer(m serverMessage, startErr error, exitR *os.File, finish func(), gateErr error) (events.ExecOutcome, error) {
	if startErr == nil && m.reply.Kind == proto.ServerStarted && len(m.fds) == 1 {
		_ = pidfdSignal(m.fds[0], unix.SIGKILL) // an init already gone needs no signal
		_ = readExit(exitR)                     // end of file: the init is gone
	}
	// Otherwise no command can exist: a refusal (the server closed its
	// copies), or a dead server, whose inits exit at their control
	// socket's end of file without a go, as on the ungated path.
	closeFDs(m.fds)
	_ = exitR.Close() // a read end: nothing to lose
	finish()
	return events.ExecOutcome{ExitCode: -1}, gateErr
}

// serverGoneError is a command that could not be sent: the server is
// gone, and nothing was started.
type serverGoneError struct{ err error }

func (e *serverGoneError) Error() string { return e.err.Error() }
func (e *serverGoneError) Unwrap() error { return e.err }

// commandStdin is what the command reads: /dev/null, or a pipe fed
// req.Stdin.
func commandStdin(req Request) (*os.File, error) {
	if req.Stdin == nil {
		f, err := os.Open(os.DevNull)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", os.DevNull, err)
		}
		return f, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	go func() {
		_, _ = w.Write(req.Stdin) // a command that does not read its input is not an error
		_ = w.Close()
	}()
	return r, nil
}
