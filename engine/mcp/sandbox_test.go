package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine/mcp/internal/mcptest"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/layers"
)

// Servers started with sandbox = true, under the plan the CLI gives them: the
// workspace (and nothing else here) writable, protected paths read-only, no
// network.

// workspacePlan is a workspace-write plan for ws, as the CLI builds it.
func workspacePlan(ws string) SandboxPlanFunc {
	return func(server, cwd string) (events.SandboxPlan, error) {
		return events.SandboxPlan{
			Mode:          sandbox.ModeWorkspaceWrite,
			WritableRoots: []string{ws},
			ReadOnlySubpaths: []string{filepath.Join(ws, ".git"), filepath.Join(ws, ".docket"),
				filepath.Join(ws, ".agents")},
		}, nil
	}
}

func boxed(c ServerConfig) ServerConfig {
	c.Sandbox = true
	return c
}

func jsonArgs(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSandboxedFilesystemServerCannotWriteOutsideTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	// The server may write anywhere under the workspace's parent and in
	// /var/tmp; only the sandbox keeps it to the workspace.
	sibling := filepath.Join(filepath.Dir(ws), "sibling-"+filepath.Base(ws))
	if err := os.Mkdir(sibling, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sibling) })
	cfg := filesystemConfig(t, filepath.Dir(ws))
	cfg.Args = append(cfg.Args, "/var/tmp")
	cfg.Cwd = ws

	for _, sandboxed := range []bool{true, false} {
		name := map[bool]string{true: "sandboxed", false: "unsandboxed"}[sandboxed]
		t.Run(name, func(t *testing.T) {
			c := cfg
			c.Sandbox = sandboxed
			m := mustStart(t, map[string]ServerConfig{"fs": c}, Options{Dir: ws, SandboxPlan: workspacePlan(ws)})
			got := statusOf(m, "fs").Layers
			if sandboxed != slices.Contains(got, layers.Seccomp) {
				t.Errorf("status layers = %v; want seccomp and the rest exactly when sandboxed", got)
			}
			if sandboxed && !slices.Contains(got, layers.NetNS) {
				t.Errorf("status layers = %v; want netns (the plan has no network)", got)
			}
			tests := []struct {
				name     string
				path     string
				allowed  bool // by the sandbox; the server allows all of them
				contents string
			}{
				{"inside the workspace", filepath.Join(ws, name+".txt"), true, "in the workspace"},
				{"a sibling of the workspace", filepath.Join(sibling, name+".txt"), false, "next door"},
				{"/var/tmp", fmt.Sprintf("/var/tmp/docket-mcp-%s-%d-%d", name, os.Getpid(), time.Now().UnixNano()), false, "far away"},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Cleanup(func() { os.Remove(tt.path) })
					res, err := m.Call(context.Background(), "fs", "write_file", jsonArgs(t, map[string]string{"path": tt.path, "content": tt.contents}))
					if err != nil {
						t.Fatalf("write_file = %v; want a result", err)
					}
					got, readErr := os.ReadFile(tt.path)
					if !sandboxed || tt.allowed {
						if res.IsError || readErr != nil || string(got) != tt.contents {
							t.Fatalf("write_file = %+v; file = %q, %v; want the write done", res, got, readErr)
						}
						return
					}
					if !res.IsError {
						t.Errorf("write_file = %+v; want an error result from the sandbox", res)
					}
					t.Logf("refused: %s", res.Text)
					if !errors.Is(readErr, os.ErrNotExist) {
						t.Errorf("%s exists after a write the sandbox forbids (%q, %v)", tt.path, got, readErr)
					}
				})
			}
		})
	}
}

func TestSandboxedTestServerCrashesAndRestarts(t *testing.T) {
	ws := t.TempDir()
	m := mustStart(t, map[string]ServerConfig{"t": boxed(testServerConfig(mcptest.ModeServe))},
		Options{Dir: ws, SandboxPlan: workspacePlan(ws)})
	ctx := context.Background()
	got := statusOf(m, "t").Layers
	if !slices.Contains(got, layers.PIDNS) {
		t.Fatalf("status layers = %v; want a PID namespace", got)
	}
	// In its own PID namespace the server sees another pid than the host does.
	if inside, outside := pidOf(t, m, "t"), serverHostPID(t, m, "t"); inside == outside {
		t.Errorf("server pid %d is its host pid; want the sandbox's PID namespace", inside)
	}
	if res, err := m.Call(ctx, "t", mcptest.EchoTool, json.RawMessage(`{"text":"boxed"}`)); err != nil || res.Text != "echo: boxed" {
		t.Fatalf("echo = %+v, %v", res, err)
	}

	_, err := m.Call(ctx, "t", mcptest.CrashTool, json.RawMessage(`{"code":3}`))
	var ee *ExitError
	if !errors.Is(err, ErrServerExited) || !errors.As(err, &ee) || ee.Status != 3 || !strings.Contains(ee.Stderr, "crashing with status 3") {
		t.Fatalf("crash call = %v; want ErrServerExited with exit status 3 and the server's stderr", err)
	}
	if st := statusOf(m, "t"); st.State != StateExited || len(st.Layers) != 0 {
		t.Errorf("status after crash = %+v; want exited, with no layers", st)
	}
	if res, err := m.Call(ctx, "t", mcptest.EchoTool, json.RawMessage(`{"text":"again"}`)); err != nil || res.Text != "echo: again" {
		t.Fatalf("echo after the crash = %+v, %v; want a restarted server", res, err)
	}
	if st := statusOf(m, "t"); st.State != StateRunning || st.Restarts != 1 || !slices.Equal(st.Layers, got) {
		t.Errorf("status after restart = %+v; want running, one restart, layers %v", st, got)
	}

	// Close stops the sandboxed process and reaps it.
	s := m.servers["t"]
	s.mu.Lock()
	helper := s.live.cmd.Process.Pid
	s.mu.Unlock()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(helper, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("sandbox helper %d still there after Close (kill 0: %v)", helper, err)
	}
}

// serverHostPID returns the host pid of the process the sandbox helper of
// server runs, from the helper's children in /proc.
func serverHostPID(t *testing.T, m *Manager, server string) int {
	t.Helper()
	s := m.servers[server]
	s.mu.Lock()
	helper := s.live.cmd.Process.Pid
	s.mu.Unlock()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", helper))
	if err != nil {
		t.Fatal(err)
	}
	var children []string
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		children = append(children, strings.Fields(string(b))...)
	}
	if len(children) != 1 {
		t.Fatalf("sandbox helper %d has children %v; want exactly the server", helper, children)
	}
	var pid int
	if _, err := fmt.Sscan(children[0], &pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestSandboxedServerFailsClosed(t *testing.T) {
	ws := t.TempDir()
	marker := filepath.Join(ws, "ran")
	// Stands for a server: it leaves a mark if it ever runs.
	server := ServerConfig{Command: "sh", Args: []string{"-c", ": > " + marker + "; exec cat"}, Sandbox: true, StartupTimeoutSec: 30}
	// A "helper" that closes its report pipe and runs the command unconfined.
	fake := filepath.Join(t.TempDir(), "fake-helper")
	script := "#!/bin/sh\nexec 3>&-\nwhile [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		opts   Options
		want   string
		mayRun bool // the process started, but must be stopped before use
	}{
		{"no plan", Options{}, "gave no sandbox plan", false},
		{"the plan fails", Options{SandboxPlan: func(string, string) (events.SandboxPlan, error) {
			return events.SandboxPlan{}, errors.New("no plan today")
		}}, "no plan today", false},
		{"a plan without a sandbox", Options{SandboxPlan: func(string, string) (events.SandboxPlan, error) {
			return events.SandboxPlan{Mode: sandbox.ModeNone}, nil
		}}, `plan mode "none"`, false},
		{"a helper that does not confine", Options{SandboxPlan: workspacePlan(ws), SandboxHelper: fake},
			"before reporting its layers", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(marker)
			tt.opts.Dir = ws
			m, err := startManager(t, map[string]ServerConfig{"s": server}, tt.opts)
			if !errors.Is(err, ErrSandboxUnavailable) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Start = %v; want ErrSandboxUnavailable mentioning %q", err, tt.want)
			}
			if st := statusOf(m, "s"); st.State != StateFailed {
				t.Errorf("state = %s; want failed", st.State)
			}
			if _, err := os.Stat(marker); err == nil && !tt.mayRun {
				t.Error("the server ran although it could not be sandboxed")
			}
		})
	}
}
