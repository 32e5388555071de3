package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/docket-engine/docket/cmd/docket/internal/sandboxd"
)

// daemonEnv chooses how `docket sandbox` uses the daemon: unset or "auto"
// (use it, start one when none runs), "off" (never), "require" (fail with
// 125 when the daemon does not take the call; for benchmarks and tests).
const daemonEnv = "DOCKET_SANDBOX_DAEMON"

// sandboxViaDaemon runs the call through the daemon; done is false when the
// daemon did not take it, so docket-core must run it.
func sandboxViaDaemon(core string, args []string) (code int, done bool) {
	mode := os.Getenv(daemonEnv)
	if mode == "off" {
		return 0, false
	}
	fail := func(err error) (int, bool) {
		fmt.Fprintln(os.Stderr, "docket:", err)
		return sandboxd.ExitSandboxFailed, true
	}
	path, err := sandboxd.SocketPath(core)
	if err != nil {
		if mode == "require" {
			return fail(err)
		}
		return 0, false
	}
	cwd, err := os.Getwd()
	if err != nil {
		return 0, false // docket-core says what is wrong with it
	}
	interrupt := make(chan os.Signal, 2)
	signal.Notify(interrupt, os.Interrupt, syscall.SIGTERM)
	code, err = sandboxd.Call(path, sandboxd.Request{Args: args, Cwd: cwd, Env: os.Environ()}, os.Stdout, os.Stderr, interrupt)
	signal.Stop(interrupt)
	switch {
	case err == nil:
		return code, true
	case !errors.Is(err, sandboxd.ErrNotServed):
		// The daemon had the call and died: the command may have run, so
		// it is not run again here.
		return fail(err)
	case mode == "require":
		return fail(err)
	}
	// Nobody served it: this call runs in docket-core. When no daemon
	// listens, the next call finds one (one that loses the race to another
	// exits at once); a refused caller starts none.
	if errors.Is(err, sandboxd.ErrNoDaemon) {
		_ = sandboxd.Start(core, path)
	}
	return 0, false
}
