package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
)

// startCommand builds and starts a sandboxed process with stdio pipes, and
// returns it with its layers; the process is killed and released when the
// test ends.
func startCommand(t *testing.T, req Request) (*Process, io.WriteCloser, *bufio.Reader, []string) {
	t.Helper()
	p, err := Command(req)
	if err != nil {
		t.Fatalf("Command(%v): %v", req.Argv, err)
	}
	stdin, err := p.Cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.Cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	p.Cmd.Stderr = &stderr
	if err := p.Cmd.Start(); err != nil {
		p.Release()
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
		_ = p.Cmd.Wait()
		p.Release()
	})
	layers, err := p.Layers(context.Background())
	if err != nil {
		t.Fatalf("Layers: %v (stderr %q)", err, stderr.String())
	}
	return p, stdin, bufio.NewReader(stdout), layers
}

func TestCommandTalksOverPipesInsideTheSandbox(t *testing.T) {
	w := t.TempDir()
	outside := t.TempDir()
	caps := Probe()
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w},
		ReadOnlySubpaths: []string{filepath.Join(w, ".git")}}
	// A line-oriented server: each input line names a file to create, and
	// the answer says whether that worked.
	script := `while read -r p; do if touch "$p" 2>/dev/null; then echo "ok $p"; else echo "denied $p"; fi; done`
	p, stdin, stdout, got := startCommand(t, Request{Argv: []string{"sh", "-c", script}, Cwd: w, Plan: plan, Caps: &caps})

	// The forecast leaves out the plan-dependent git directory layer.
	if want := caps.Layers(plan); !slices.Equal(slices.DeleteFunc(slices.Clone(got), func(l string) bool { return l == layers.GitDirs }), want) {
		t.Errorf("layers = %v, want %v", got, want)
	}
	ask := func(t *testing.T, path string) string {
		t.Helper()
		if _, err := fmt.Fprintln(stdin, path); err != nil {
			t.Fatal(err)
		}
		line, err := stdout.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the answer for %s: %v", path, err)
		}
		return strings.TrimSpace(line)
	}
	tests := []struct {
		name string
		path string
		want string
	}{
		{"a write under the writable root works", filepath.Join(w, "inside"), "ok"},
		{"a write outside every root is refused", filepath.Join(outside, "escape"), "denied"},
		{"a protected path stays read-only", filepath.Join(w, ".git", "config"), "denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ask(t, tt.path); got != tt.want+" "+tt.path {
				t.Errorf("answer = %q, want %q", got, tt.want+" "+tt.path)
			}
			if _, err := os.Stat(tt.path); (err == nil) != (tt.want == "ok") {
				t.Errorf("%s exists = %t after a %s write", tt.path, err == nil, tt.want)
			}
		})
	}

	// Closing stdin ends the server like an MCP client's shutdown does, and
	// the helper passes the command's status on.
	stdin.Close()
	err := p.Cmd.Wait()
	if err != nil {
		t.Fatalf("Wait after closing stdin: %v", err)
	}
	if code := p.Cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
}

func TestCommandExitStatusPassesThroughTheHelper(t *testing.T) {
	w := t.TempDir()
	p, stdin, _, _ := startCommand(t, Request{Argv: []string{"sh", "-c", "read -r line; exit 7"}, Cwd: w,
		Plan: events.SandboxPlan{Mode: ModeReadOnly}})
	stdin.Write([]byte("go\n"))
	var ee *exec.ExitError
	if err := p.Cmd.Wait(); !errors.As(err, &ee) || p.Cmd.ProcessState.ExitCode() != 7 {
		t.Fatalf("Wait = %v (exit %d), want exit status 7", err, p.Cmd.ProcessState.ExitCode())
	}
}

func TestCommandSignalReachesTheCommand(t *testing.T) {
	w := t.TempDir()
	marker := filepath.Join(w, "terminated")
	// The command records SIGTERM in the workspace before exiting.
	script := fmt.Sprintf(`trap ': > %s; exit 3' TERM; echo ready; while :; do sleep 0.05; done`, marker)
	p, _, stdout, _ := startCommand(t, Request{Argv: []string{"sh", "-c", script}, Cwd: w,
		Plan: events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w}}})
	if line, err := stdout.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("first line = %q, %v", line, err)
	}
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = p.Cmd.Wait()
	if code := p.Cmd.ProcessState.ExitCode(); code != 3 || !exists(marker) {
		t.Errorf("exit code = %d, marker written = %t; want the command's trap to run (3, true)", code, exists(marker))
	}
}

func TestCommandFailsClosed(t *testing.T) {
	caps := Probe()
	w := t.TempDir()
	marker := filepath.Join(w, "ran")
	argv := []string{"touch", marker}
	protected := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w},
		ReadOnlySubpaths: []string{filepath.Join(w, ".git")}, RequireProtectedPaths: true}
	unavailable := []struct {
		name    string
		caps    Capabilities
		plan    events.SandboxPlan
		missing string
	}{
		{"no landlock", Capabilities{Seccomp: true, UserNamespaces: true}, events.SandboxPlan{Mode: ModeReadOnly}, "landlock"},
		{"no seccomp", Capabilities{LandlockABI: caps.LandlockABI, UserNamespaces: true}, events.SandboxPlan{Mode: ModeReadOnly}, layers.Seccomp},
		{"protected paths required without namespaces", Capabilities{LandlockABI: caps.LandlockABI, Seccomp: true}, protected, layers.MountNS},
	}
	for _, tt := range unavailable {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.caps
			p, err := Command(Request{Argv: argv, Cwd: w, Plan: tt.plan, Caps: &c})
			var ue *UnavailableError
			if p != nil || !errors.As(err, &ue) || !slices.Contains(ue.Missing, tt.missing) || ue.Hint == "" {
				t.Fatalf("Command = %v, %v; want an UnavailableError missing %q with a hint", p, err, tt.missing)
			}
		})
	}
	errorsTable := []struct {
		name string
		req  Request
		want string
	}{
		{"mode none is never handed out", Request{Argv: argv, Cwd: w, Plan: events.SandboxPlan{Mode: ModeNone}}, `plan mode "none"`},
		{"a missing command is an error", Request{Argv: []string{"docket-no-such-command"}, Cwd: w, Plan: events.SandboxPlan{Mode: ModeReadOnly}}, "not found"},
		{"empty argv", Request{Cwd: w, Plan: events.SandboxPlan{Mode: ModeReadOnly}}, "empty argv"},
	}
	for _, tt := range errorsTable {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Command(tt.req)
			if p != nil || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Command = %v, %v; want an error containing %q", p, err, tt.want)
			}
		})
	}
	t.Run("a helper that never confines itself is not a sandbox", func(t *testing.T) {
		// /bin/true stands for a helper that dies before reporting.
		p, err := Command(Request{Argv: argv, Cwd: w, Plan: events.SandboxPlan{Mode: ModeReadOnly}, HelperPath: "/bin/true"})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Release()
		if err := p.Cmd.Start(); err != nil {
			t.Fatal(err)
		}
		layers, err := p.Layers(context.Background())
		_ = p.Cmd.Wait()
		if err == nil || !strings.Contains(err.Error(), "before reporting its layers") {
			t.Fatalf("Layers = %v, %v; want an error: the helper exited before reporting", layers, err)
		}
	})
	t.Run("the helper refusing a layer is an UnavailableError", func(t *testing.T) {
		// The compiled filter is swapped for one the kernel rejects (an
		// empty program is refused by the spec check, a return of an
		// unknown action by the kernel): the helper reports the layer.
		c := caps
		c.filterNetOff = make([]byte, proto.SockFilterSize) // BPF "ld" with no return: EINVAL
		p, err := Command(Request{Argv: argv, Cwd: w, Plan: events.SandboxPlan{Mode: ModeReadOnly}, Caps: &c})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Release()
		if err := p.Cmd.Start(); err != nil {
			t.Fatal(err)
		}
		_, err = p.Layers(context.Background())
		_ = p.Cmd.Wait()
		var ue *UnavailableError
		if !errors.As(err, &ue) || !slices.Contains(ue.Missing, layers.Seccomp) {
			t.Fatalf("Layers error = %v, want an UnavailableError missing %s", err, layers.Seccomp)
		}
		if exists(marker) {
			t.Fatal("the command ran although the helper failed to confine itself")
		}
	})
	t.Run("layers before start", func(t *testing.T) {
		p, err := Command(Request{Argv: argv, Cwd: w, Plan: events.SandboxPlan{Mode: ModeReadOnly}})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Release()
		if _, err := p.Layers(context.Background()); err == nil || !strings.Contains(err.Error(), "before the helper was started") {
			t.Fatalf("Layers before Start = %v", err)
		}
	})
}

// TestEscapeSuiteCommand runs the escape suite through Command instead of
// Run: the process an MCP server gets must be confined the same way.
func TestEscapeSuiteCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	if raceEnabled {
		t.Skip("same confinement as TestEscapeSuite; skipped to keep -race runs short")
	}
	runEscapeSuiteWith(t, "", nil, runViaCommand)
}

// runViaCommand is Run for the escape suite, through Command: stdin from
// /dev/null, output collected, the whole namespace killed at the timeout.
// Plans of mode none go to Run, since Command refuses them.
func runViaCommand(ctx context.Context, req Request) (events.ExecOutcome, error) {
	var out events.ExecOutcome
	if !req.Plan.Sandboxed() {
		return Run(ctx, req)
	}
	p, err := Command(req)
	if err != nil {
		return out, err
	}
	defer p.Release()
	var stdout, stderr bytes.Buffer
	p.Cmd.Stdout, p.Cmd.Stderr = &stdout, &stderr
	p.Cmd.WaitDelay = drainDelay
	if err := p.Cmd.Start(); err != nil {
		return out, err
	}
	pid := p.Cmd.Process.Pid
	kill := func() { _ = syscall.Kill(-pid, syscall.SIGKILL) }
	layers, err := p.Layers(ctx)
	if err != nil {
		kill()
		_ = p.Cmd.Wait()
		return out, err
	}
	timer := time.AfterFunc(req.Timeout, kill)
	_ = p.Cmd.Wait()
	out.TimedOut = !timer.Stop()
	fillStatus(&out, p.Cmd.ProcessState)
	out.Layers = layers
	out.Stdout, out.Stderr = stdout.String(), stderr.String()
	out.Output = out.Stdout + out.Stderr
	return out, nil
}
