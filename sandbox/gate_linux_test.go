package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
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

// gatedParent plays docket for TestDocketKilledAtTheGateRunsNothing: in
// the workspace args[0] it sends a gated call that would write a marker
// to the session's server, waits until the call's init is confined at the
// gate, says "ready" and waits to be killed.
func gatedParent(args []string) int {
	exe, err := os.Executable()
	if err != nil {
		return fail("%v", err)
	}
	w := args[0]
	s := &Servers{Binary: exe}
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w}, ReadOnlySubpaths: []string{filepath.Join(w, ".codex")}}
	go func() {
		_, err := Run(context.Background(), Request{Argv: []string{"sh", "-c", "echo ran >> marker"}, Cwd: w, Plan: plan,
			Timeout: time.Minute, HelperPath: exe, Launcher: s, Gate: NewGate()})
		fmt.Fprintf(os.Stderr, "the gated call returned before docket was killed: %v\n", err)
		os.Exit(1)
	}()
	for deadline := time.Now().Add(20 * time.Second); initsAtGate(s) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			return fail("the call's init never reached the gate")
		}
	}
	fmt.Println("ready")
	select {}
}

// TestDocketKilledAtTheGateRunsNothing: docket killed (SIGKILL) while a
// prepared call waits at its gate leaves nothing running and the command
// never started: the go pipe reaches end of file, the server's thread
// closes the init's control socket, and the server sees docket's socket
// close. Each process of the call has the workspace's path in its
// command line (the server's spec names it). This is the outcome only:
// an init wrongly given its go would see docket's end of the exit pipe
// gone and kill the command too (the lifeline), mostly before it wrote;
// TestServerGivesNoGoAtTheGoPipesEnd checks the server's part alone.
func TestDocketKilledAtTheGateRunsNothing(t *testing.T) {
	requireServer(t)
	w := filepath.Join(t.TempDir(), fmt.Sprintf("gated-%d", time.Now().UnixNano()))
	if err := os.Mkdir(w, 0o755); err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(testBinary(t), attackArg, "gated-parent", w)
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	parent.Stderr = &stderr
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		_ = parent.Process.Kill()
		_ = parent.Wait()
		t.Fatalf("the parent did not prepare the call: %q %v\n%s", line, err, stderr.String())
	}
	// The parent itself has w in its argv: what else has it is the call's.
	others := func() []string {
		return slices.DeleteFunc(pidsWith(t, w), func(p string) bool { return p == strconv.Itoa(parent.Process.Pid) })
	}
	if len(others()) < 2 {
		t.Fatalf("the server and the call's init are not both running (pids %v): the test cannot tell whether they go", others())
	}
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait() // killed: the error says so
	gone := false
	for range 600 {
		if len(others()) == 0 {
			gone = true
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !gone {
		t.Errorf("processes of the call outlived docket: pids %v", others())
	}
	if _, err := os.Stat(filepath.Join(w, "marker")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran after docket was killed at its gate: %v", err)
	}
}

// TestServerGivesNoGoAtTheGoPipesEnd: the server's side of the gate
// alone. A gated command sent by hand, whose go pipe is closed without
// the go (and whose init nobody kills), never starts: the server's thread
// closes the init's control socket and the init exits, its exit pipe at
// end of file with no report. (Run's abandonment also kills the init
// through its pidfd, which would hide a server that gave the go at end
// of file.)
func TestServerGivesNoGoAtTheGoPipesEnd(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	s := &Servers{Binary: testBinary(t)}
	t.Cleanup(func() { _ = s.Close() })
	req := Request{Argv: []string{"sh", "-c", "echo ran >> marker"}, Cwd: f.W, Plan: f.plan(vWW), HelperPath: testBinary(t)}
	p, err := prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	caps, _, spec, err := helperSetup(req, p)
	if err != nil {
		t.Fatal(err)
	}
	spec, release, err := holdStubs(req, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	sv, err := s.get(req, serverBase(spec, caps.Root))
	if err != nil {
		t.Fatal(err)
	}
	defer sv.use(-1)
	var files []*os.File
	pipe := func() (*os.File, *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, r, w)
		return r, w
	}
	defer func() {
		for _, f := range files {
			_ = f.Close()
		}
	}()
	stdin, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, stdin)
	_, outW := pipe()
	_, errW := pipe()
	exitR, exitW := pipe()
	goR, goW := pipe()
	cmd := proto.ServerCommand{CallSpec: spec.CallSpec, Argv: req.Argv, Env: p.env, Gated: true}
	id, call, err := sv.send(cmd, []int{int(stdin.Fd()), int(outW.Fd()), int(errW.Fd()), int(exitW.Fd()), int(goR.Fd())})
	if err != nil {
		t.Fatal(err)
	}
	defer sv.forget(id)
	for _, f := range []*os.File{outW, errW, exitW, goR} {
		_ = f.Close() // the server has its copies
	}
	m, err := waitStarted(sv, call)
	if err != nil || m.reply.Kind != proto.ServerStarted {
		t.Fatalf("the gated command's init did not report started: %v %+v", err, m.reply)
	}
	closeFDs(m.fds)
	// A window in which an init given its go would have run the command.
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(f.W, "marker")); err == nil {
		t.Fatal("the command ran before its go")
	}
	_ = goW.Close() // end of file, no go
	exit := readExit(exitR)
	if exit.line != nil || exit.bad != nil {
		t.Errorf("the init reported %+v (%v), want an exit without a report", exit.line, exit.bad)
	}
	if _, err := os.Stat(filepath.Join(f.W, "marker")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran without its go: %v", err)
	}
}
