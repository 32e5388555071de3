package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SandboxPlanFunc returns the plan a server configured with sandbox = true
// runs under, given the server's name and its absolute working directory.
type SandboxPlanFunc func(server, cwd string) (events.SandboxPlan, error)

// sandboxed builds the process of a server with sandbox = true. Any failure
// keeps the server from starting: it never runs unconfined instead.
func (s *server) sandboxed(l launch) (*sandbox.Process, error) {
	planFor := s.m.opts.SandboxPlan
	if planFor == nil {
		return nil, fmt.Errorf("%w: the session gave no sandbox plan for MCP servers", ErrSandboxUnavailable)
	}
	dir := l.dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("%w: working directory: %w", ErrSandboxUnavailable, err)
		}
		dir = wd
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: working directory %q: %w", ErrSandboxUnavailable, l.dir, err)
	}
	plan, err := planFor(s.name, dir)
	if err != nil {
		return nil, fmt.Errorf("%w: sandbox plan: %w", ErrSandboxUnavailable, err)
	}
	caps := s.m.prober.Capabilities()
	proc, err := sandbox.Command(sandbox.Request{
		Argv: append([]string{l.command}, l.args...),
		Cwd:  dir,
		Env:  l.env,
		// The environment is already the short inherited list plus the
		// server's own env table: a token there was put there on purpose.
		KeepSecretEnv: true,
		Plan:          plan,
		HelperPath:    s.m.opts.SandboxHelper,
		Caps:          &caps,
		StubRecords:   s.m.opts.StubRecords,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSandboxUnavailable, err)
	}
	return proc, nil
}

// sandboxTransport is a CommandTransport whose Connect also waits for the
// sandbox helper to confine itself, so that a server that would run without
// its sandbox is stopped before the first message reaches it.
type sandboxTransport struct {
	inner  *sdk.CommandTransport
	proc   *sandbox.Process
	layers []string
}

// Connect starts the helper and returns the connection once the helper has
// reported its layers.
func (t *sandboxTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	layers, err := t.proc.Layers(ctx)
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("%w: %w", ErrSandboxUnavailable, err)
	}
	t.layers = layers
	return conn, nil
}
