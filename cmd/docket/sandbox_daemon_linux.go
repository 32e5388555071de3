package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/docket-engine/docket/cmd/docket/internal/sandboxd"
	"github.com/docket-engine/docket/sandbox"
)

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
	c.Flags().StringVar(&socket, "socket", "", "the socket to serve (the front binary names it after this binary)")
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
	shut := make(chan struct{})
	go func() {
		defer close(shut)
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
	<-shut // the socket is shut down before it is closed, never after
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
