package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
)

// initsAtGate counts the calls of s whose init is confined and reported
// started while docket has not yet looked: the server's side of a gated
// call is done, and only the go is missing.
func initsAtGate(s *Servers) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, sv := range s.byKey {
		sv.mu.Lock()
		for _, c := range sv.calls {
			n += len(c.started)
		}
		sv.mu.Unlock()
	}
	return n
}

// TestGateHoldsTheCommandUntilItOpens: a gated call on the session's
// server is prepared up to its confined init (its stub held, its started
// reply in) and its command, which would write a marker, starts only when
// the gate opens; abandoned, or with its context ended first, it never
// runs, the call ends with ErrAbandoned and its stub is gone. A helper of
// the call's own (PerCall) holds the command back as well.
func TestGateHoldsTheCommandUntilItOpens(t *testing.T) {
	requireServer(t)
	tests := []struct {
		name     string
		perCall  bool
		decide   func(g *Gate, cancel context.CancelFunc)
		wantRuns int
		wantErr  error
	}{
		{name: "an opened gate starts the command once", decide: func(g *Gate, _ context.CancelFunc) { g.Open() }, wantRuns: 1},
		{name: "an abandoned gate never starts it", decide: func(g *Gate, _ context.CancelFunc) { g.Abandon() }, wantErr: ErrAbandoned},
		{name: "a context ended first never starts it", decide: func(_ *Gate, cancel context.CancelFunc) { cancel() }, wantErr: context.Canceled},
		{name: "a helper of its own waits for the gate too", perCall: true, decide: func(g *Gate, _ context.CancelFunc) { g.Abandon() }, wantErr: ErrAbandoned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			s, run := viaServers(t)
			if tt.perCall {
				run = Run
			}
			marker := filepath.Join(f.W, "marker")
			stub := filepath.Join(f.W, ".codex") // .git is the fixture's own
			gate := NewGate()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				out events.ExecOutcome
				err error
			}
			done := make(chan result, 1)
			go func() {
				out, err := run(ctx, Request{Argv: []string{"sh", "-c", "echo ran >> marker"}, Cwd: f.W, Plan: f.plan(vWW),
					Timeout: time.Minute, Gate: gate})
				done <- result{out, err}
			}()
			if !tt.perCall {
				// Bounded: a call that never gets there fails below.
				for deadline := time.Now().Add(20 * time.Second); initsAtGate(s) == 0 && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
				if initsAtGate(s) == 0 {
					t.Fatal("the call's init never reported started while the gate was closed")
				}
				if _, err := os.Lstat(stub); err != nil {
					t.Errorf("the call's stub %s is not held while it waits: %v", stub, err)
				}
			}
			// A command started early would have written by now, mostly:
			// a window, not a timed assertion.
			time.Sleep(100 * time.Millisecond)
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the command ran before the gate opened")
			}
			tt.decide(gate, cancel)
			res := <-done
			if tt.wantErr != nil {
				if !errors.Is(res.err, tt.wantErr) || !errors.Is(res.err, ErrAbandoned) {
					t.Errorf("err %v, want one wrapping %v and %v", res.err, tt.wantErr, ErrAbandoned)
				}
			} else if res.err != nil || res.out.ExitCode != 0 {
				t.Fatalf("run: %v %+v", res.err, res.out)
			}
			b, err := os.ReadFile(marker)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if got := strings.Count(string(b), "ran\n"); got != tt.wantRuns {
				t.Errorf("the command ran %d times, want %d", got, tt.wantRuns)
			}
			if _, err := os.Lstat(stub); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("stub %s left after the call: %v", stub, err)
			}
		})
	}
}
