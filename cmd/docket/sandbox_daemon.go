package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/docket-engine/docket/cmd/docket/internal/sandboxd"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
)

// idleEnv sets how long the sandbox daemon waits for a call before it
// exits (a Go duration; default defaultDaemonIdle).
const idleEnv = "DOCKET_SANDBOX_DAEMON_IDLE"

const defaultDaemonIdle = 10 * time.Minute

// maxDaemonWalks bounds the git walks the daemon keeps: one per set of
// writable roots, the least recently used dropped beyond it.
const maxDaemonWalks = 8

// sandboxDaemon is what the daemon keeps across `docket sandbox` calls:
// the sandbox servers and the git walks, as a session keeps them.
type sandboxDaemon struct {
	srv *sandbox.Servers
	// probed is the machine's sandbox capabilities, probed once, as a
	// session does.
	probed *sandbox.Capabilities
	// self is what callers are compared with (sandboxd.CheckPeer).
	self *sandboxd.Identity

	mu   sync.Mutex
	kept map[string]*keptWalk
	// retired are walks dropped from kept; a call still using one may
	// walk again into it, so they are closed again at the end.
	retired []*sandbox.GitWalkCache
}

type keptWalk struct {
	cache *sandbox.GitWalkCache
	used  time.Time
}

// servers is nil outside the daemon: each call starts its own helper.
func (d *sandboxDaemon) servers() *sandbox.Servers {
	if d == nil {
		return nil
	}
	return d.srv
}

// caps is nil outside the daemon: each call probes.
func (d *sandboxDaemon) caps() *sandbox.Capabilities {
	if d == nil {
		return nil
	}
	return d.probed
}

// walks returns the kept walk for plan's roots; nil outside the daemon.
func (d *sandboxDaemon) walks(plan events.SandboxPlan) *sandbox.GitWalkCache {
	if d == nil || !plan.Sandboxed() {
		return nil
	}
	key := strings.Join(plan.WritableRoots, "\x00")
	d.mu.Lock()
	defer d.mu.Unlock()
	if w := d.kept[key]; w != nil {
		w.used = time.Now()
		return w.cache
	}
	if d.kept == nil {
		d.kept = map[string]*keptWalk{}
	}
	if len(d.kept) >= maxDaemonWalks {
		var oldKey string
		var old *keptWalk
		for k, w := range d.kept {
			if old == nil || w.used.Before(old.used) {
				oldKey, old = k, w
			}
		}
		delete(d.kept, oldKey)
		// A call still using it keeps working: a closed cache walks afresh.
		_ = old.cache.Close()
		d.retired = append(d.retired, old.cache)
	}
	w := &keptWalk{cache: &sandbox.GitWalkCache{}, used: time.Now()}
	d.kept[key] = w
	return w.cache
}

func (d *sandboxDaemon) close() error {
	d.mu.Lock()
	kept, retired := d.kept, d.retired
	d.kept, d.retired = nil, nil
	d.mu.Unlock()
	errs := []error{d.srv.Close()}
	for _, w := range kept {
		errs = append(errs, w.cache.Close())
	}
	for _, c := range retired {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

func newSandboxDaemonCmd(a *app) *cobra.Command {
	var socket string
	c := &cobra.Command{
		Use:    "sandbox-daemon --socket PATH",
		Short:  "Serve `docket sandbox` calls from the front binary (started by it)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if socket == "" {
				return usageErrorf("sandbox-daemon: --socket is required")
			}
			idle := defaultDaemonIdle
			if v := os.Getenv(idleEnv); v != "" {
				d, err := time.ParseDuration(v)
				if err != nil || d <= 0 {
					return usageErrorf("%s=%q: want a positive duration such as 10m", idleEnv, v)
				}
				idle = d
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err := serveSandboxDaemon(ctx, socket, idle, "")
			if errors.Is(err, sandboxd.ErrTaken) {
				return nil // another daemon serves: nothing to do
			}
			return err
		},
	}
	c.Flags().StringVar(&socket, "socket", "", "the socket to serve (sandboxd.SocketPath of this binary)")
	return c
}

// serveSandboxDaemon serves calls on socket until ctx ends or no call came
// for idle; it then stops taking calls, lets those running end, and stops
// its sandbox servers. serverBinary is the docket started as sandbox
// server ("" for this one).
func serveSandboxDaemon(ctx context.Context, socket string, idle time.Duration, serverBinary string) error {
	l, err := sandboxd.Listen(socket)
	if err != nil {
		return err
	}
	self, err := sandboxd.Self()
	if err != nil {
		_ = l.Close() // never served
		return err
	}
	caps := sandbox.Probe()
	d := &sandboxDaemon{srv: &sandbox.Servers{Binary: serverBinary}, probed: &caps, self: self}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		calls    sync.WaitGroup
		mu       sync.Mutex
		active   int
		stopping bool
	)
	// Idle: stop only while no call runs, decided under mu so that a call
	// accepted meanwhile is either served or refused, never cut short.
	timer := time.AfterFunc(idle, func() {
		mu.Lock()
		defer mu.Unlock()
		if active == 0 {
			stopping = true
			cancel()
		}
	})
	go func() {
		<-ctx.Done()
		l.Shutdown() // wakes Accept
	}()
	for {
		c, err := l.Accept()
		if err != nil {
			break
		}
		mu.Lock()
		refuse := ""
		if stopping || ctx.Err() != nil {
			refuse = "the daemon is stopping"
		}
		active++
		timer.Stop()
		mu.Unlock()
		calls.Add(1)
		go func() {
			defer calls.Done()
			d.serve(ctx, c, refuse)
			mu.Lock()
			active--
			if active == 0 {
				timer.Reset(idle)
			}
			mu.Unlock()
		}()
	}
	cancel()
	timer.Stop()
	calls.Wait()
	return errors.Join(l.Close(), d.close())
}

// serve runs one client's call: the same command code as `docket sandbox`
// in the client's working directory and environment, writing straight to
// the client's streams. A call with refuse set, or from a caller CheckPeer
// refuses, is answered with the reason and not run.
func (d *sandboxDaemon) serve(ctx context.Context, c *sandboxd.Conn, refuse string) {
	defer func() { _ = c.Close() }() // after the hang-up reader returned, below
	// The request first: a caller refused before it was read would see
	// its send fail, not the reason.
	req, files, err := c.ReadRequest()
	if err != nil {
		_ = c.Reply(sandboxd.Result{Refused: err.Error()}) // it may be gone; nothing ran either way
		return
	}
	defer func() { _ = files[0].Close(); _ = files[1].Close() }() // the client's copies stay open
	if refuse == "" {
		if err := c.Check(d.self); err != nil {
			refuse = err.Error()
		}
	}
	if refuse != "" {
		_ = c.Reply(sandboxd.Result{Refused: refuse})
		return
	}
	callCtx, cancel := context.WithCancel(ctx)
	hungUp := make(chan struct{})
	go func() {
		defer close(hungUp)
		c.WaitHangup()
		cancel()
	}()
	a := &app{
		stdin: bytes.NewReader(nil), stdout: files[0], stderr: files[1],
		caller: sandboxCaller{cwd: req.Cwd, env: req.Env},
		daemon: d,
	}
	code := runApp(callCtx, a, req.Args)
	if err := c.Reply(sandboxd.Result{Code: code}); err != nil {
		fmt.Fprintln(files[1], "docket: sandbox daemon: sending the result:", err)
	}
	c.Shutdown()
	<-hungUp
	cancel()
}
