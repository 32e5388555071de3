package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine/mcp/internal/mcptest"
)

// Tests against the project's own crash-on-demand server (mcptest), run from
// this test binary.

func pidOf(t *testing.T, m *Manager, server string) int {
	t.Helper()
	res, err := m.Call(context.Background(), server, mcptest.PIDTool, nil)
	if err != nil {
		t.Fatalf("pid: %v", err)
	}
	var out struct{ PID int }
	if err := json.Unmarshal(res.Structured, &out); err != nil || out.PID == 0 {
		t.Fatalf("pid result %+v: %v", res, err)
	}
	return out.PID
}

func statsOf(t *testing.T, m *Manager, server string) mcptest.Stats {
	t.Helper()
	res, err := m.Call(context.Background(), server, mcptest.StatsTool, nil)
	if err != nil {
		t.Fatalf("stats: %v", err)
	}
	var st mcptest.Stats
	if err := json.Unmarshal(res.Structured, &st); err != nil {
		t.Fatalf("stats result %+v: %v", res, err)
	}
	return st
}

// awaitSleepers polls until n sleep calls are running on the server. It
// bounds the wait only to turn a hang into a failure; nothing is timed.
func awaitSleepers(t *testing.T, m *Manager, server string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for statsOf(t, m, server).ActiveSleepers < n {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %d sleep calls running", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func statusOf(m *Manager, server string) ServerStatus {
	for _, s := range m.Status() {
		if s.Name == server {
			return s
		}
	}
	return ServerStatus{}
}

func parallel(c ServerConfig) ServerConfig {
	c.SupportsParallelToolCalls = true
	return c
}

func TestCrashMidCallFailsCallsInFlightAndRestarts(t *testing.T) {
	m := mustStart(t, map[string]ServerConfig{"t": parallel(testServerConfig(mcptest.ModeServe))}, Options{})
	ctx := context.Background()
	firstPID := pidOf(t, m, "t")

	sleeper := make(chan error, 1)
	go func() {
		_, err := m.Call(ctx, "t", mcptest.SleepTool, json.RawMessage(`{"ms":0}`))
		sleeper <- err
	}()
	awaitSleepers(t, m, "t", 1)

	_, err := m.Call(ctx, "t", mcptest.CrashTool, json.RawMessage(`{"code":3}`))
	var ee *ExitError
	if !errors.Is(err, ErrServerExited) || !errors.As(err, &ee) || ee.Status != 3 || !strings.Contains(ee.Stderr, "crashing with status 3") {
		t.Fatalf("crash call = %v; want ErrServerExited with exit status 3 and the server's stderr", err)
	}
	if err := <-sleeper; !errors.Is(err, ErrServerExited) {
		t.Errorf("call in flight during the crash = %v; want ErrServerExited", err)
	}
	if out, ok := ForModel(Result{}, err); ok || !strings.Contains(out, "exited while tool crash was running (exit status 3") {
		t.Errorf("ForModel = %q, %v", out, ok)
	}
	if st := statusOf(m, "t"); st.State != StateExited || !strings.Contains(st.Error, "exit status 3") {
		t.Errorf("status after crash = %+v; want exited with the exit status", st)
	}

	secondPID := pidOf(t, m, "t")
	if secondPID == firstPID {
		t.Errorf("server pid %d unchanged after a crash; want a restarted process", secondPID)
	}
	if st := statusOf(m, "t"); st.State != StateRunning || st.Restarts != 1 || st.Error != "" {
		t.Errorf("status after restart = %+v; want running with one restart", st)
	}
}

func TestRestartBackoffAfterRepeatedExits(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	m := mustStart(t, map[string]ServerConfig{"t": testServerConfig(mcptest.ModeServe)},
		Options{Now: clock.Now, RestartBackoff: 4 * time.Second, MaxRestartBackoff: 8 * time.Second})
	ctx := context.Background()
	crash := func() {
		t.Helper()
		if _, err := m.Call(ctx, "t", mcptest.CrashTool, json.RawMessage(`{"code":1}`)); !errors.Is(err, ErrServerExited) {
			t.Fatalf("crash = %v; want ErrServerExited", err)
		}
	}
	echo := func() error {
		_, err := m.Call(ctx, "t", mcptest.EchoTool, json.RawMessage(`{"text":"x"}`))
		return err
	}

	crash() // first exit: the next call restarts at once
	crash() // restarted, exited again without answering anything: back off 4s
	err := echo()
	if !errors.Is(err, ErrServerUnavailable) || !strings.Contains(err.Error(), "restart allowed in 4s") {
		t.Fatalf("call during backoff = %v; want ErrServerUnavailable, restart allowed in 4s", err)
	}
	clock.Advance(3 * time.Second)
	if err := echo(); !errors.Is(err, ErrServerUnavailable) {
		t.Fatalf("call 1s before the backoff ends = %v; want ErrServerUnavailable", err)
	}
	clock.Advance(time.Second)
	crash() // restarts, then exits a third time: 8s (doubled)
	if err := echo(); err == nil || !strings.Contains(err.Error(), "restart allowed in 8s") {
		t.Fatalf("call after third exit = %v; want restart allowed in 8s", err)
	}
	clock.Advance(8 * time.Second)
	if err := echo(); err != nil {
		t.Fatalf("echo after backoff = %v", err)
	}
	crash() // an answered call reset the strikes: restart at once again
	if err := echo(); err != nil {
		t.Fatalf("echo after a single exit = %v; want an immediate restart", err)
	}
	if st := statusOf(m, "t"); st.Restarts != 4 {
		t.Errorf("restarts = %d, want 4", st.Restarts)
	}
}

func TestStartFailuresAreReportedPerServer(t *testing.T) {
	hang := testServerConfig(mcptest.ModeHangAtStart)
	hang.StartupTimeoutSec = 0.5
	off := false
	m, err := startManager(t, map[string]ServerConfig{
		"good":    testServerConfig(mcptest.ModeServe),
		"exits":   testServerConfig(mcptest.ModeExitAtStart),
		"hangs":   hang,
		"missing": {Command: "/nonexistent/docket-mcp-server"},
		"off":     {Command: "/nonexistent/never-started", Enabled: &off},
		"boxed":   {Command: "true", Sandbox: true},
	}, Options{})
	if err == nil {
		t.Fatal("Start succeeded with four broken servers")
	}
	failed := map[string]error{}
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var se *ServerError
		if errors.As(e, &se) {
			failed[se.Server] = se.Err
		}
	}
	wantErr := map[string]string{
		"exits":   "exit status 2",
		"hangs":   "startup_timeout_sec (500ms)",
		"missing": "no such file or directory",
		"boxed":   "gave no sandbox plan",
	}
	if len(failed) != len(wantErr) {
		t.Errorf("failed servers = %v; want exactly %v", failed, wantErr)
	}
	for name, want := range wantErr {
		if e := failed[name]; e == nil || !strings.Contains(e.Error(), want) {
			t.Errorf("server %s failed with %v; want an error containing %q", name, e, want)
		}
	}
	if e := failed["exits"]; e == nil || !strings.Contains(e.Error(), mcptest.StartupMessage) {
		t.Errorf("exits error %v does not carry the server's stderr", e)
	}

	// The good server works; the others are unavailable with the reason.
	if res, err := m.Call(context.Background(), "good", mcptest.EchoTool, json.RawMessage(`{"text":"ok"}`)); err != nil || res.Text != "echo: ok" {
		t.Errorf("good server echo = %+v, %v", res, err)
	}
	for name, want := range map[string]string{"exits": "failed to start", "off": "disabled in the config"} {
		_, err := m.Call(context.Background(), name, mcptest.EchoTool, nil)
		if !errors.Is(err, ErrServerUnavailable) || !strings.Contains(err.Error(), want) {
			t.Errorf("call on %s = %v; want ErrServerUnavailable: %s", name, err, want)
		}
	}
	wantState := map[string]State{"good": StateRunning, "exits": StateFailed, "hangs": StateFailed,
		"missing": StateFailed, "off": StateDisabled, "boxed": StateFailed}
	for _, st := range m.List(context.Background()) {
		if st.State != wantState[st.Name] {
			t.Errorf("server %s state %s, want %s", st.Name, st.State, wantState[st.Name])
		}
		if (st.State == StateFailed) != (st.Error != "") {
			t.Errorf("server %s: state %s with error %q", st.Name, st.State, st.Error)
		}
		if (st.Name == "good") != (len(st.Tools) > 0) {
			t.Errorf("server %s lists tools %q", st.Name, st.Tools)
		}
	}
}

func TestOddToolNamesRouteByProvenance(t *testing.T) {
	m := mustStart(t, map[string]ServerConfig{"my-srv": testServerConfig(mcptest.ModeServe)}, Options{})
	for _, raw := range []string{mcptest.OddTool, mcptest.LongTool} {
		var found *Tool
		for _, tl := range m.Tools() {
			if tl.Name == raw {
				found = &tl
			}
		}
		if found == nil {
			t.Fatalf("tool %q not registered", raw)
		}
		if !ValidQualifiedName(found.Qualified) || !strings.HasPrefix(found.Qualified, "mcp__my_srv__") {
			t.Errorf("tool %q qualified as %q", raw, found.Qualified)
		}
		got, ok := m.Lookup(found.Qualified)
		if !ok || got.Server != "my-srv" || got.Name != raw {
			t.Fatalf("Lookup(%q) = %+v, %v", found.Qualified, got, ok)
		}
		res, err := m.Call(context.Background(), got.Server, got.Name, nil)
		if err != nil || res.Text != "called "+raw {
			t.Errorf("call %q = %+v, %v", raw, res, err)
		}
	}
	if _, ok := m.Lookup("mcp__my_srv__odd.name/with spaces"); ok {
		t.Error("Lookup accepted a raw name")
	}
}

func TestCallRejectsBadRequests(t *testing.T) {
	m := mustStart(t, map[string]ServerConfig{"t": testServerConfig(mcptest.ModeServe)}, Options{})
	ctx := context.Background()
	tests := []struct {
		name, server, tool string
		args               string
		want               error
	}{
		{"unknown server", "nope", "echo", `{}`, ErrUnknownServer},
		{"unknown tool", "t", "nope", `{}`, ErrUnknownTool},
		{"array arguments", "t", "echo", `[1]`, ErrBadArguments},
		{"broken JSON", "t", "echo", `{"text":`, ErrBadArguments},
		{"server-side error for a wrong type", "t", "echo", `{"text":5}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := m.Call(ctx, tt.server, tt.tool, json.RawMessage(tt.args))
			if tt.want == nil {
				// The SDK server validates input: a failed call either way.
				if _, ok := ForModel(res, err); ok {
					t.Errorf("call = %+v, %v; want a failure", res, err)
				}
				return
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.tool) {
				t.Errorf("call = %v; want %v naming %q", err, tt.want, tt.tool)
			}
		})
	}
	for _, args := range []string{"", "null", "  {}  "} {
		if res, err := m.Call(ctx, "t", mcptest.PIDTool, json.RawMessage(args)); err != nil || res.IsError {
			t.Errorf("arguments %q = %q, %v; want them taken as {}", args, res.Text, err)
		}
	}
}

func TestTimeoutKeepsTheSameProcess(t *testing.T) {
	m := mustStart(t, map[string]ServerConfig{"t": withToolTimeout(testServerConfig(mcptest.ModeServe), 2)}, Options{})
	pid := pidOf(t, m, "t")
	_, err := m.Call(context.Background(), "t", mcptest.SleepTool, json.RawMessage(`{"ms":0}`))
	var ce *CallError
	if !errors.Is(err, ErrTimeout) || !errors.As(err, &ce) || ce.After != 2*time.Second {
		t.Fatalf("sleep = %v; want ErrTimeout after 2s", err)
	}
	if again := pidOf(t, m, "t"); again != pid {
		t.Errorf("pid %d after a timeout, was %d: the server should not restart", again, pid)
	}
	// The cancelled sleep ended on the server too.
	deadline := time.Now().Add(30 * time.Second)
	for statsOf(t, m, "t").ActiveSleepers != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the timed-out call is still running on the server")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSerialisesServersWithoutParallelCalls(t *testing.T) {
	for _, tt := range []struct {
		name     string
		parallel bool
	}{{"serial", false}, {"parallel", true}} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testServerConfig(mcptest.ModeServe)
			cfg.SupportsParallelToolCalls = tt.parallel
			m := mustStart(t, map[string]ServerConfig{"t": cfg}, Options{})
			if tl, _ := m.Lookup("mcp__t__sleep"); tl.ParallelSafe != tt.parallel {
				t.Errorf("ParallelSafe = %v", tl.ParallelSafe)
			}
			const n = 3
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, n)
			ms := `{"ms":30}`
			if tt.parallel {
				ms = `{"ms":0}` // run until cancelled, so all three must overlap
			}
			for range n {
				go func() {
					_, err := m.Call(ctx, "t", mcptest.SleepTool, json.RawMessage(ms))
					done <- err
				}()
			}
			if tt.parallel {
				awaitSleepers(t, m, "t", n)
				cancel()
			}
			for range n {
				if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("sleep: %v", err)
				}
			}
			cancel()
			want := 1
			if tt.parallel {
				want = n
			}
			if st := statsOf(t, m, "t"); st.MaxSleepers != want {
				t.Errorf("at most %d calls ran at once, want %d", st.MaxSleepers, want)
			}
		})
	}
}

func TestCloseEndsCallsInFlight(t *testing.T) {
	m, err := startManager(t, map[string]ServerConfig{"t": parallel(testServerConfig(mcptest.ModeServe))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sleeper := make(chan error, 1)
	go func() {
		_, err := m.Call(context.Background(), "t", mcptest.SleepTool, json.RawMessage(`{"ms":0}`))
		sleeper <- err
	}()
	awaitSleepers(t, m, "t", 1)
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-sleeper; !errors.Is(err, ErrClosed) {
		t.Errorf("call in flight at Close = %v; want ErrClosed", err)
	}
	if _, err := m.Call(context.Background(), "t", mcptest.EchoTool, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close = %v; want ErrClosed", err)
	}
	if st := statusOf(m, "t"); st.State != StateClosed {
		t.Errorf("state after Close = %s", st.State)
	}
}
