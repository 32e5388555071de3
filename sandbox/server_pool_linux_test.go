package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// countingListener listens on a pathname unix socket and counts the
// connections that said something.
type countingListener struct {
	net.Listener
	hellos atomic.Int32
}

func listenCounting(t *testing.T, path string) *countingListener {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatalf("listening on %s: %v", path, err)
	}
	c := &countingListener{Listener: l}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			if n, _ := conn.Read(make([]byte, 8)); n > 0 {
				c.hellos.Add(1)
			}
			_ = conn.Close()
		}
	}()
	return c
}

// TestServerKeptWhenHostSocketsComeAndGo: the host's unix sockets are
// not something a server builds once, so a socket bound or closed anywhere
// on the host between two calls (any program's) neither starts another
// server nor opens a way out: a socket bound after the server started is
// covered for the call that finds it, and so is a socket closed and bound
// again at the path the server covered when it started (the host's unlink
// took that cover away). Each connection works without the sandbox.
func TestServerKeptWhenHostSocketsComeAndGo(t *testing.T) {
	requireServer(t)
	// A change of the host's mount table stops a session's servers on
	// purpose; another test run on the same machine can make one at any
	// moment. Such a run is tried again, never counted as a pass.
	for attempt := 1; ; attempt++ {
		mountsBefore, err := os.ReadFile("/proc/self/mountinfo")
		if err != nil {
			t.Fatal(err)
		}
		kept, msg := serverKeptWhenHostSocketsComeAndGo(t)
		if kept {
			return
		}
		mountsAfter, err := os.ReadFile("/proc/self/mountinfo")
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(mountsBefore, mountsAfter) || attempt == 3 {
			t.Fatal(msg)
		}
		t.Logf("attempt %d: %s, but the host's mount table changed meanwhile (which stops servers on purpose): again", attempt, msg)
	}
}

func serverKeptWhenHostSocketsComeAndGo(t *testing.T) (bool, string) {
	f := newFixture(t)
	s, run := viaServers(t)
	connects := func(plan string, l *countingListener) bool {
		t.Helper()
		before := l.hellos.Load()
		out, err := run(context.Background(), Request{Argv: attackArgv(t, "unix-connect", l.Addr().String()),
			Cwd: f.W, Plan: f.plan(plan), Timeout: time.Minute})
		if err != nil {
			t.Fatalf("%s: %v", plan, err)
		}
		if out.ExitCode != 0 {
			return false
		}
		// The client said hello and exited: only the listener's goroutine
		// has yet to run, which a loaded machine may delay.
		return waitUntil(30*time.Second, func() bool { return l.hellos.Load() > before })
	}
	early := filepath.Join(f.O, "early.sock")
	lEarly := listenCounting(t, early)
	if !connects(vNone, lEarly) {
		t.Fatal("the connection does not work without the sandbox: the test proves nothing")
	}
	if connects(vWW, lEarly) {
		t.Error("a socket bound before the server started was reached")
	}
	pids := serverPIDs(s)
	if len(pids) != 1 {
		t.Fatalf("%d servers after one plan's first call, want 1", len(pids))
	}

	late := listenCounting(t, filepath.Join(f.O, "late.sock"))
	if !connects(vNone, late) {
		t.Fatal("the late socket does not work without the sandbox")
	}
	if connects(vWW, late) {
		t.Error("a socket bound after the server started was reached")
	}

	// The early socket closed (Go unlinks it) and bound again: another
	// socket at the path the server's layout covered.
	_ = lEarly.Close()
	again := listenCounting(t, early)
	if !connects(vNone, again) {
		t.Fatal("the socket bound again does not work without the sandbox")
	}
	if connects(vWW, again) {
		t.Error("a socket bound again where the server covered one was reached")
	}
	_ = late.Close()
	mustRunWW(t, run, f, "true")
	if got := serverPIDs(s); !slices.Equal(got, pids) {
		return false, fmt.Sprintf("servers %v after host sockets came and went, want the first one %v kept", got, pids)
	}
	return true, ""
}
