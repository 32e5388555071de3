package mcp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/docket-engine/docket/sandbox"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// State is a server's lifecycle state as List reports it.
type State string

// Server states.
const (
	// StateNotStarted: Start has not been called yet.
	StateNotStarted State = "not_started"
	// StateStarting: the process is being spawned and initialized.
	StateStarting State = "starting"
	// StateRunning: initialized and serving calls.
	StateRunning State = "running"
	// StateExited: the process exited after a successful start; the next
	// call restarts it once its backoff has passed.
	StateExited State = "exited"
	// StateFailed: the initial start failed; the server is not retried.
	StateFailed State = "failed"
	// StateDisabled: enabled = false in the config.
	StateDisabled State = "disabled"
	// StateClosed: the Manager was closed.
	StateClosed State = "closed"
)

// generation is one run of a server process: a session over its stdio.
type generation struct {
	sess   *sdk.ClientSession
	cmd    *exec.Cmd
	stderr *tail
	// proc is the sandboxed process behind cmd, nil without sandbox = true;
	// layers are the sandbox layers its helper reported.
	proc   *sandbox.Process
	layers []string
	// remote is the endpoint of a remote server (cmd is then nil).
	remote string
	// done is closed once the connection has ended, the process has been
	// reaped and the server's state updated; exit is set before that.
	done chan struct{}
	exit error
}

// server is one configured server and its current process, if any.
type server struct {
	name string
	cfg  ServerConfig
	m    *Manager
	// sem serialises calls when the server does not support parallel calls.
	sem chan struct{}

	mu       sync.Mutex
	state    State
	err      error // why the server is failed, exited or unavailable
	live     *generation
	starting chan struct{} // closed when an in-progress (re)start ends
	raw      []*sdk.Tool   // tools from the first successful listing
	strikes  int           // exits and failed restarts since the last answered call
	retryAt  time.Time     // no restart before this
	restarts int           // successful restarts, for status
}

func newServer(m *Manager, name string, cfg ServerConfig) *server {
	s := &server{name: name, cfg: cfg, m: m, state: StateNotStarted}
	if !cfg.IsEnabled() {
		s.state = StateDisabled
	}
	if !cfg.SupportsParallelToolCalls {
		s.sem = make(chan struct{}, 1)
	}
	return s
}

// start performs the initial start; a failure leaves the server failed.
func (s *server) start(ctx context.Context) error {
	s.mu.Lock()
	if s.state != StateNotStarted {
		s.mu.Unlock()
		return nil
	}
	if _, err := s.launch(ctx, true); err != nil {
		return &ServerError{Server: s.name, Err: err}
	}
	return nil
}

// launch is the one body of a start and a restart. It is called with s.mu
// held and releases it while the process starts, so calls and status see
// the server as starting (and wait on s.starting). The initial start lists
// the tools and, on failure, leaves the server failed; a restart leaves it
// exited with a strike and a backoff. A close during the start wins.
func (s *server) launch(ctx context.Context, initial bool) (*generation, error) {
	s.state = StateStarting
	ch := make(chan struct{})
	s.starting = ch
	s.mu.Unlock()

	g, tools, err := s.spawn(ctx, initial)

	s.mu.Lock()
	if err == nil && s.state == StateClosed {
		err = ErrClosed
	}
	switch {
	case err != nil && s.state == StateClosed:
	case err != nil && initial:
		s.state, s.err = StateFailed, err
	case err != nil:
		s.state, s.err = StateExited, fmt.Errorf("restart failed: %w", err)
		s.strikes++
		s.retryAt = s.m.now().Add(s.m.backoff(s.strikes))
	default:
		s.state, s.live, s.err = StateRunning, g, nil
		if initial {
			s.raw = tools
		} else {
			s.restarts++
		}
		go s.watch(g)
	}
	s.starting = nil
	s.mu.Unlock()
	if err != nil && g != nil {
		discard(g)
	}
	close(ch)
	if err != nil {
		return nil, err
	}
	return g, nil
}

// spawn starts the process, initializes the session and, when list is set,
// lists the tools, all within startup_timeout_sec. On error the process is
// gone, except that a returned generation must still be reaped.
func (s *server) spawn(ctx context.Context, list bool) (*generation, []*sdk.Tool, error) {
	if s.cfg.Remote() {
		return s.spawnRemote(ctx, list)
	}
	l, err := s.cfg.resolve(s.name, s.m.environ, s.m.opts.Dir)
	if err != nil {
		return nil, nil, err
	}
	var cmd *exec.Cmd
	var proc *sandbox.Process
	if s.cfg.Sandbox {
		// The helper runs in its own session, hence its own process group.
		if proc, err = s.sandboxed(l); err != nil {
			return nil, nil, err
		}
		cmd = proc.Cmd
	} else {
		cmd = exec.Command(l.command, l.args...)
		cmd.Env, cmd.Dir = l.env, l.dir
		// Own process group: Close can then reap helpers a server spawned (npx
		// starts node), and a terminal's ^C reaches Docket, not the servers.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	// A grandchild holding stderr open must not keep Wait from returning.
	cmd.WaitDelay = s.m.opts.TerminateGrace
	stderr := newTail(s.name, s.m.stderr)
	cmd.Stderr = stderr

	sctx, cancel := context.WithTimeout(ctx, s.cfg.StartupTimeout())
	defer cancel()
	ct := &sdk.CommandTransport{Command: cmd, TerminateDuration: s.m.opts.TerminateGrace}
	var tr sdk.Transport = ct
	var boxed *sandboxTransport
	if proc != nil {
		boxed = &sandboxTransport{inner: ct, proc: proc}
		tr = boxed
	}
	sess, err := s.m.client.Connect(sctx, tr, nil)
	if err != nil {
		// The SDK closed the session on a failed handshake; the group may
		// still hold helpers.
		killGroup(cmd)
		if proc != nil {
			proc.Release()
		}
		return nil, nil, s.startError(sctx, cmd, stderr, fmt.Errorf("initialize: %w", err))
	}
	g := &generation{sess: sess, cmd: cmd, stderr: stderr, done: make(chan struct{}), proc: proc}
	if boxed != nil {
		g.layers = boxed.layers
	}
	if !list {
		return g, nil, nil
	}
	tools := []*sdk.Tool{} // non-nil: listed, even if empty
	for t, err := range sess.Tools(sctx, nil) {
		if err != nil {
			return g, nil, s.startError(sctx, cmd, stderr, fmt.Errorf("tools/list: %w", err))
		}
		tools = append(tools, t)
	}
	return g, tools, nil
}

// startError explains a failed start: a timeout names startup_timeout_sec,
// an exited process its status and stderr.
func (s *server) startError(sctx context.Context, cmd *exec.Cmd, stderr *tail, err error) error {
	if errors.Is(sctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within startup_timeout_sec (%s): %w", s.cfg.StartupTimeout(), err)
	}
	if cmd.ProcessState != nil {
		return fmt.Errorf("%w (%v)", err, exitError(cmd, stderr))
	}
	if msg := stderr.String(); msg != "" {
		return fmt.Errorf("%w; stderr: %s", err, msg)
	}
	return err
}

// watch waits for a generation's connection to end, then records the exit.
// done closes only after the state says so, so a caller that saw done can
// count on the next call restarting the server.
func (s *server) watch(g *generation) {
	reap(g)
	s.mu.Lock()
	if s.live == g {
		s.live = nil
		if s.state != StateClosed {
			s.state, s.err = StateExited, g.exit
			s.strikes++
			s.retryAt = s.m.now().Add(s.m.backoff(s.strikes))
		}
	}
	s.mu.Unlock()
	close(g.done)
}

// reap waits for the connection to end (the SDK then reaps the process),
// kills what is left of the process group, and records how it ended.
func reap(g *generation) {
	werr := g.sess.Wait()
	_ = g.sess.Close()
	if g.cmd == nil {
		g.exit = fmt.Errorf("the connection to %s ended", g.remote)
		if werr != nil {
			g.exit = fmt.Errorf("the connection to %s ended: %w", g.remote, werr)
		}
		return
	}
	killGroup(g.cmd)
	if g.proc != nil {
		g.proc.Release()
	}
	g.exit = exitError(g.cmd, g.stderr)
}

// session returns the running generation, restarting an exited server when
// its backoff has passed. On failure kind is ErrServerUnavailable, ErrClosed
// or the context's error, and err says why.
func (s *server) session(ctx context.Context) (g *generation, kind, err error) {
	for {
		s.mu.Lock()
		switch s.state {
		case StateRunning:
			g := s.live
			s.mu.Unlock()
			return g, nil, nil
		case StateStarting:
			ch := s.starting
			s.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, context.Cause(ctx), nil
			}
		case StateExited:
			if wait := s.retryAt.Sub(s.m.now()); wait > 0 {
				err := fmt.Errorf("exited (%v); restart allowed in %s", s.err, wait.Round(time.Millisecond))
				s.mu.Unlock()
				return nil, ErrServerUnavailable, err
			}
			g, err := s.restart(ctx) // unlocks
			if err != nil {
				return nil, ErrServerUnavailable, err
			}
			return g, nil, nil
		case StateClosed:
			s.mu.Unlock()
			return nil, ErrClosed, nil
		case StateDisabled:
			s.mu.Unlock()
			return nil, ErrServerUnavailable, errors.New("disabled in the config")
		case StateNotStarted:
			s.mu.Unlock()
			return nil, ErrServerUnavailable, errors.New("not started")
		default: // StateFailed
			err := fmt.Errorf("failed to start: %w", s.err)
			s.mu.Unlock()
			return nil, ErrServerUnavailable, err
		}
	}
}

// restart is called with s.mu held and releases it.
func (s *server) restart(ctx context.Context) (*generation, error) {
	g, err := s.launch(ctx, false)
	if err != nil {
		return nil, fmt.Errorf("restart failed: %w", err)
	}
	return g, nil
}

// answered notes that the server answered a call, so it is healthy again.
func (s *server) answered() {
	s.mu.Lock()
	s.strikes = 0
	s.mu.Unlock()
}

// close shuts the server down and waits for its process to be reaped; a
// start in progress is waited for first (bounded by startup_timeout_sec).
func (s *server) close() {
	s.mu.Lock()
	s.state = StateClosed
	g := s.live
	ch := s.starting
	s.mu.Unlock()
	if ch != nil {
		<-ch
		s.mu.Lock()
		g = s.live
		s.mu.Unlock()
	}
	if g != nil {
		_ = g.sess.Close()
		<-g.done
	}
}

// discard shuts down a generation that never went live.
func discard(g *generation) {
	_ = g.sess.Close()
	reap(g)
	close(g.done)
}

// killGroup kills whatever is left in the process group of cmd.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// exitError describes how cmd ended.
func exitError(cmd *exec.Cmd, stderr *tail) error {
	e := &ExitError{Status: -1, Stderr: stderr.String()}
	if ps := cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = ws.Signal().String()
		} else {
			e.Status = ps.ExitCode()
		}
	}
	return e
}

// listed reports whether the server ever listed its tools.
func (s *server) listed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.raw != nil
}

// whyNotListed explains a server that has no tools registered.
func (s *server) whyNotListed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case StateDisabled:
		return errors.New("disabled in the config")
	case StateFailed:
		return fmt.Errorf("failed to start: %w", s.err)
	case StateNotStarted, StateStarting:
		return errors.New("not started")
	}
	return fmt.Errorf("server is %s and listed no tools", s.state)
}
