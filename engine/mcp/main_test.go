package mcp

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine/mcp/internal/mcptest"
	"github.com/docket-engine/docket/sandbox/helper"
)

func TestMain(m *testing.M) {
	// The test binary doubles as the sandbox helper (checked first: the
	// helper carries the server's environment) and as the crash-on-demand
	// test server.
	if helper.IsHelper(os.Args) {
		os.Exit(helper.Main(os.Args))
	}
	mcptest.RunIfServer()
	os.Exit(m.Run())
}

// npmServersDir is where scripts/install-mcp-servers.sh installs the npm servers.
func npmServersDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("MCP_SERVERS_DIR"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".cache", "mcp")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("cannot find the repository root (go.mod) above the test directory")
		}
		dir = parent
	}
}

// npmServer returns the path of an installed npm server's executable, and
// fails the test with the fix when it is missing.
func npmServer(t testing.TB, bin string) string {
	t.Helper()
	dir := npmServersDir(t)
	p := filepath.Join(dir, "node_modules", ".bin", bin)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("MCP test server %s is not installed in %s (%v): run scripts/install-mcp-servers.sh from the repository root (MCP_SERVERS_DIR overrides the folder)", bin, dir, err)
	}
	return p
}

func everythingConfig(t testing.TB) ServerConfig {
	return ServerConfig{Command: npmServer(t, "mcp-server-everything"), StartupTimeoutSec: 60}
}

func filesystemConfig(t testing.TB, root string) ServerConfig {
	return ServerConfig{Command: npmServer(t, "mcp-server-filesystem"), Args: []string{root}, StartupTimeoutSec: 60}
}

// testServerConfig runs this test binary as the mcptest server.
func testServerConfig(mode string) ServerConfig {
	cmd, args, env := mcptest.Config(mode)
	return ServerConfig{Command: cmd, Args: args, Env: env, StartupTimeoutSec: 60}
}

// startManager starts a Manager over servers and closes it when the test ends.
func startManager(t *testing.T, servers map[string]ServerConfig, opts Options) (*Manager, error) {
	t.Helper()
	if opts.TerminateGrace == 0 {
		opts.TerminateGrace = 500 * time.Millisecond
	}
	m, err := NewManager(servers, opts)
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m, m.Start(context.Background())
}

func mustStart(t *testing.T, servers map[string]ServerConfig, opts Options) *Manager {
	t.Helper()
	m, err := startManager(t, servers, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return m
}

// fakeClock is a settable clock for restart backoff.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
