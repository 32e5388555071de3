package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/stubs"
)

// TestStubsOfASharedRootHoldUnderConcurrentDockets: /tmp is a writable
// root of every docket on the host, and its .agents, .docket and .git are
// protected; when missing, each run holds a stub there. Several dockets
// (each with records of its own, as each has its own $DOCKET_HOME), some
// through a server and some with a helper per call, run at once against
// one shared root: every call must run, with the stub bound read-only, and
// none may fail because another run's stub came and went meanwhile.
func TestStubsOfASharedRootHoldUnderConcurrentDockets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	if !Probe().Namespaces() {
		t.Skip("needs a mount namespace to bind stubs")
	}
	shared := t.TempDir() // the stand-in for /tmp
	const dockets, calls = 6, 30
	var wg sync.WaitGroup
	stop := make(chan struct{})
	home := filepath.Join(t.TempDir(), "stubs")
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				_, _ = stubs.RemoveLeft(home)
			}
		}
	}()
	errs := make(chan string, dockets*calls)
	for d := 0; d < dockets; d++ {
		// As under /tmp: each workspace lies in the shared root.
		ws, err := os.MkdirTemp(shared, "ws")
		if err != nil {
			t.Fatal(err)
		}
		records := filepath.Join(t.TempDir(), "stubs")
		if d%3 != 2 {
			records = home
		}
		var servers *Servers
		if d%2 == 1 {
			servers = &Servers{}
			defer func() { _ = servers.Close() }()
		}
		plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{ws, shared},
			ReadOnlySubpaths: []string{filepath.Join(ws, ".git"), filepath.Join(shared, ".agents"),
				filepath.Join(shared, ".docket"), filepath.Join(shared, ".git")}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				req := Request{Argv: []string{"sh", "-c", "test -d '" + shared + "/.agents' && ! mkdir '" + shared + "/.agents/x' 2>/dev/null"},
					Cwd: ws, Plan: plan, StubRecords: records}
				if servers != nil {
					req.Launcher = servers
				}
				out, err := Run(context.Background(), req)
				if err != nil || out.ExitCode != 0 {
					errs <- fmt.Sprintf("docket %d call %d: err=%v exit=%d stderr=%q", d, i, err, out.ExitCode, out.Stderr)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	close(errs)
	n := 0
	for e := range errs {
		if n++; n <= 5 {
			t.Error(e)
		}
	}
	if n > 0 {
		t.Errorf("%d of %d calls failed", n, dockets*calls)
	}
	if exists(filepath.Join(shared, ".agents", "x")) {
		t.Error("a command wrote into the shared root's .agents")
	}
}

// TestAStubThatVanishesBeforeItIsBoundIsHeldAgain: a process that does not
// take docket's lock (another sandbox's own stub-and-remove, a /tmp
// cleaner) removes the stub docket holds in a shared root after the hold
// and before the helper binds it. Nothing has run yet, so the call holds a
// fresh stub and launches again: the command runs, with the path read-only.
// One that removes it on every launch makes the call fail, bounded, before
// the command ever runs, and never buys a weaker setup.
func TestAStubThatVanishesBeforeItIsBoundIsHeldAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	caps := Probe()
	if !caps.Namespaces() {
		t.Skip("needs a mount namespace to bind stubs")
	}
	tests := []struct {
		name string
		once bool // the stand-in removes the stub at the first launch only
	}{
		{"removed once", true},
		{"removed at every launch", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shared := t.TempDir()
			ws := filepath.Join(shared, "ws")
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			stub := filepath.Join(shared, ".agents")
			mark := filepath.Join(t.TempDir(), "removed")
			remove := "rmdir '" + stub + "' && mkdir -p '" + mark + "'"
			if tt.once {
				remove = "if [ ! -d '" + mark + "' ]; then " + remove + "; fi"
			}
			// The stand-in runs where the real helper would, before any mount.
			helper := fakeHelper(t, "__never__", remove+"; exec '"+testBinary(t)+"' \"$@\"")
			plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{ws, shared},
				ReadOnlySubpaths: []string{filepath.Join(ws, ".git"), stub}}
			c := caps
			var runs int
			out, err := Run(context.Background(), Request{
				Argv: []string{"sh", "-c", "test -d '" + stub + "' && ! mkdir '" + stub + "/x' 2>/dev/null && echo ran"},
				Cwd:  ws, Plan: plan, HelperPath: helper, Caps: &c, Timeout: time.Minute,
				OnOutput: func(_ string, b []byte) { runs += strings.Count(string(b), "ran") }})
			if !exists(mark) {
				t.Fatal("the stand-in never removed the stub: the case proves nothing")
			}
			if len(out.Fallbacks) != 0 {
				t.Fatalf("fell back to a weaker setup: %q", out.Fallbacks)
			}
			if exists(filepath.Join(stub, "x")) {
				t.Fatal("the command created the protected path's content")
			}
			if tt.once {
				if err != nil || runs != 1 || out.ExitCode != 0 {
					t.Fatalf("err=%v runs=%d exit=%d stderr=%q: want one run with the stub bound", err, runs, out.ExitCode, out.Stderr)
				}
				return
			}
			if err == nil || runs != 0 {
				t.Fatalf("err=%v runs=%d: want the call to fail before the command ran", err, runs)
			}
			if !strings.Contains(err.Error(), proto.LayerProtectedPaths) {
				t.Errorf("error %q does not name %s", err, proto.LayerProtectedPaths)
			}
		})
	}
}
