package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/cmd/docket/internal/sandboxd"
)

// callDaemon makes one `docket sandbox` call through the daemon at sock and
// returns its exit status and what it wrote.
func callDaemon(t *testing.T, sock, cwd string, args ...string) (int, string, string, error) {
	t.Helper()
	dir := t.TempDir()
	outF, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	errF, err := os.Create(filepath.Join(dir, "err"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = outF.Close(); _ = errF.Close() }()
	code, cerr := sandboxd.Call(sock, sandboxd.Request{Args: append([]string{"sandbox"}, args...), Cwd: cwd, Env: os.Environ()}, outF, errF, nil)
	out, _ := os.ReadFile(outF.Name())
	errb, _ := os.ReadFile(errF.Name())
	return code, string(out), string(errb), cerr
}

// The daemon in this process, under the race detector: parallel calls in
// different workspaces share its servers and walks, each getting its own
// output and status, and it stops when told and when idle.
func TestSandboxDaemonServesParallelCallsAndStops(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	rt, err := os.MkdirTemp("", "dsd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(rt) })
	sock := filepath.Join(rt, "s.sock")
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveSandboxDaemon(ctx, sock, time.Hour, bin) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, _, _, err := callDaemon(t, sock, t.TempDir(), "--", "true"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon never served")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var wg sync.WaitGroup
	for i := range 6 {
		ws := t.TempDir()
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, out, errOut, err := callDaemon(t, sock, ws, "-s", "workspace-write", "--", "sh", "-c",
				fmt.Sprintf("echo call%d; echo note%d >&2; echo x > made; exit %d", i, i, i))
			if err != nil || code != i || out != fmt.Sprintf("call%d\n", i) || errOut != fmt.Sprintf("note%d\n", i) {
				t.Errorf("call %d: exit %d, %q, %q, %v", i, code, out, errOut, err)
			}
			if _, err := os.Stat(filepath.Join(ws, "made")); err != nil {
				t.Errorf("call %d did not run in its own workspace: %v", i, err)
			}
		}()
	}
	wg.Wait()
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("daemon: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the daemon did not stop after its context ended")
	}
	if _, err := os.Stat(sock); err == nil {
		t.Error("the stopped daemon left its socket")
	}
	// Another daemon takes the socket over, and stops by itself when idle.
	go func() { served <- serveSandboxDaemon(context.Background(), sock, 300*time.Millisecond, bin) }()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("idle daemon: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("an idle daemon did not stop")
	}
	if _, _, errOut, err := callDaemon(t, sock, t.TempDir(), "--", "true"); err == nil || !strings.Contains(err.Error(), "not served") {
		t.Errorf("a call after the daemon stopped: %v %s", err, errOut)
	}
}
