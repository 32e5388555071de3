package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
	"github.com/docket-engine/docket/sandbox/stubs"
)

// testPlans are the plans process handling must behave the same under.
func testPlans(w string) map[string]events.SandboxPlan {
	return map[string]events.SandboxPlan{
		"none":      {Mode: ModeNone},
		"read-only": {Mode: ModeReadOnly},
		"workspace-write": {Mode: ModeWorkspaceWrite, WritableRoots: []string{w},
			ReadOnlySubpaths: []string{filepath.Join(w, ".git")}},
	}
}

func mustRun(t *testing.T, req Request) events.ExecOutcome {
	t.Helper()
	out, err := Run(context.Background(), req)
	if err != nil {
		t.Fatalf("Run(%v): %v", req.Argv, err)
	}
	return out
}

func TestRunExitStatus(t *testing.T) {
	w := t.TempDir()
	script := filepath.Join(w, "not-executable.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		argv       []string
		wantCode   int
		wantSignal string
		wantStderr string
	}{
		{"exit code is the command's", []string{"sh", "-c", "exit 3"}, 3, "", ""},
		{"success", []string{"true"}, 0, "", ""},
		{"killed by a signal gives 128+n", []string{"sh", "-c", "kill -TERM $$"}, 143, "SIGTERM", ""},
		{"command not found is 127", []string{"docket-no-such-command"}, 127, "", "command not found"},
		{"not executable is 126", []string{"./not-executable.sh"}, 126, "", "not executable"},
	}
	for planName, plan := range testPlans(w) {
		for _, tt := range tests {
			t.Run(planName+"/"+tt.name, func(t *testing.T) {
				out := mustRun(t, Request{Argv: tt.argv, Cwd: w, Plan: plan})
				if out.ExitCode != tt.wantCode || out.Signal != tt.wantSignal {
					t.Errorf("exit=%d signal=%q, want %d %q (stderr %q)", out.ExitCode, out.Signal, tt.wantCode, tt.wantSignal, out.Stderr)
				}
				if !strings.Contains(out.Stderr, tt.wantStderr) {
					t.Errorf("stderr %q does not mention %q", out.Stderr, tt.wantStderr)
				}
				if out.DurationNs <= 0 && tt.wantCode < 126 {
					t.Errorf("duration not recorded: %d", out.DurationNs)
				}
			})
		}
	}
}

// uniqueSleep returns a sleep duration that doubles as a marker in the
// process table, so the test can look for survivors.
func uniqueSleep() string {
	return fmt.Sprintf("%d.%06d", 100000+os.Getpid()%1000, time.Now().Nanosecond()/1000)
}

func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	w := t.TempDir()
	for planName, plan := range testPlans(w) {
		t.Run(planName, func(t *testing.T) {
			mark := uniqueSleep()
			// The grandchild sleeps in the background; the shell waits. The
			// time-out leaves a loaded machine time to start the shell.
			out := mustRun(t, Request{
				Argv: []string{"sh", "-c", "sleep " + mark + " & echo started; wait"},
				Cwd:  w, Plan: plan, Timeout: 2 * time.Second, KillGrace: 5 * time.Second,
			})
			if !out.TimedOut {
				t.Errorf("TimedOut = false: %+v", out)
			}
			if out.Signal != "SIGTERM" || out.ExitCode != 143 {
				t.Errorf("exit=%d signal=%q, want the shell killed by SIGTERM", out.ExitCode, out.Signal)
			}
			if !strings.Contains(out.Stdout, "started") {
				t.Errorf("output before the timeout lost: %q", out.Stdout)
			}
			if n := killByToken(t, "sleep "+mark); n > 0 {
				t.Errorf("%d sleep grandchild(ren) outlived the timeout", n)
			}
		})
	}
}

func TestTimeoutEscalatesToSIGKILL(t *testing.T) {
	w := t.TempDir()
	for planName, plan := range testPlans(w) {
		t.Run(planName, func(t *testing.T) {
			mark := uniqueSleep()
			// SIGTERM is ignored by the shell and, inherited, by sleep. The
			// time-out leaves a loaded machine time to start the shell and
			// run its trap: a SIGTERM before the trap ends the shell, and
			// the run would report SIGTERM, not the escalation.
			out := mustRun(t, Request{
				Argv: []string{"sh", "-c", "trap '' TERM; sleep " + mark + " & wait"},
				Cwd:  w, Plan: plan, Timeout: 2 * time.Second, KillGrace: 200 * time.Millisecond,
			})
			if !out.TimedOut || out.Signal != "SIGKILL" || out.ExitCode != 137 {
				t.Errorf("timed_out=%t exit=%d signal=%q, want SIGKILL after the grace period", out.TimedOut, out.ExitCode, out.Signal)
			}
			if n := killByToken(t, "sleep "+mark); n > 0 {
				t.Errorf("%d process(es) outlived SIGKILL", n)
			}
		})
	}
}

func TestBackgroundChildIsKilledWhenTheCommandExits(t *testing.T) {
	w := t.TempDir()
	for planName, plan := range testPlans(w) {
		t.Run(planName, func(t *testing.T) {
			mark := uniqueSleep()
			out := mustRun(t, Request{Argv: []string{"sh", "-c", "sleep " + mark + " & echo done"}, Cwd: w, Plan: plan})
			if out.ExitCode != 0 || out.TimedOut {
				t.Fatalf("exit=%d timed_out=%t", out.ExitCode, out.TimedOut)
			}
			if n := killByToken(t, "sleep "+mark); n > 0 {
				t.Errorf("%d background process(es) outlived the command", n)
			}
		})
	}
}

func TestCancelStopsTheCommand(t *testing.T) {
	w := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once sync.Once
	go func() {
		<-started
		cancel()
	}()
	out, err := Run(ctx, Request{
		Argv: []string{"sh", "-c", "echo up; exec sleep " + uniqueSleep()}, Cwd: w,
		Plan:     events.SandboxPlan{Mode: ModeReadOnly},
		OnOutput: func(string, []byte) { once.Do(func() { close(started) }) },
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if out.TimedOut || out.Signal != "SIGTERM" {
		t.Errorf("timed_out=%t signal=%q, want a SIGTERM that is not a timeout", out.TimedOut, out.Signal)
	}
}

func TestOutputIsCappedAndStreamed(t *testing.T) {
	w := t.TempDir()
	for planName, plan := range testPlans(w) {
		t.Run(planName, func(t *testing.T) {
			var mu sync.Mutex
			streamed := map[string]int{}
			// One line on stderr, then about 220 kB of numbered lines on
			// stdout. Two pipes have no order between them, so stderr goes
			// first with a gap: it lands in the interleaved output's kept
			// head, not in the elided middle (it did, under load, when it
			// came last).
			wantStdout := len("tail-of-stdout\n")
			for i := 1; i <= 38894; i++ {
				wantStdout += len(fmt.Sprint(i)) + 1
			}
			out := mustRun(t, Request{
				Argv: []string{"sh", "-c", "echo oops >&2; sleep 0.2; seq 1 38894 >/dev/stdout; echo tail-of-stdout"},
				Cwd:  w, Plan: plan, OutputCap: 1000,
				OnOutput: func(stream string, chunk []byte) {
					mu.Lock()
					streamed[stream] += len(chunk)
					mu.Unlock()
				},
			})
			if !out.Truncated {
				t.Error("Truncated = false")
			}
			if !strings.HasPrefix(out.Stdout, "1\n2\n3\n") || !strings.HasSuffix(out.Stdout, "38894\ntail-of-stdout\n") {
				t.Errorf("stdout does not keep head and tail: %.60q ... %.60q", out.Stdout, out.Stdout[len(out.Stdout)-60:])
			}
			if !strings.Contains(out.Stdout, "bytes elided ...]") || len(out.Stdout) > 1100 {
				t.Errorf("stdout is %d bytes without a marker within the cap", len(out.Stdout))
			}
			if out.Stderr != "oops\n" {
				t.Errorf("stderr = %q", out.Stderr)
			}
			if !strings.Contains(out.Output, "oops") {
				t.Errorf("interleaved output lost stderr: ...%q", out.Output[max(0, len(out.Output)-80):])
			}
			mu.Lock()
			defer mu.Unlock()
			if streamed["stdout"] != wantStdout || streamed["stderr"] != 5 {
				t.Errorf("streamed %v, want every byte (%d stdout, 5 stderr)", streamed, wantStdout)
			}
		})
	}
}

func TestStdinIsDevNull(t *testing.T) {
	out := mustRun(t, Request{Argv: []string{"cat"}, Plan: events.SandboxPlan{Mode: ModeReadOnly}, Timeout: time.Minute})
	if out.ExitCode != 0 || out.Output != "" || out.TimedOut {
		t.Errorf("cat read something: %+v", out)
	}
}

func TestEnvironment(t *testing.T) {
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/u", "OPENAI_API_KEY=sk-1", "GH_TOKEN=t", "db_password=p",
		"AWS_SECRET_ACCESS_KEY=s", "DOCKET_SANDBOX=fake", "PLAIN=1"}
	tests := []struct {
		name       string
		plan       events.SandboxPlan
		keep       bool
		want, gone []string
	}{
		{"sandboxed without network", events.SandboxPlan{Mode: ModeReadOnly}, false,
			[]string{"HOME=/home/u", "PLAIN=1", "DOCKET_SANDBOX=linux", "DOCKET_SANDBOX_NETWORK_DISABLED=1"},
			[]string{"OPENAI_API_KEY", "GH_TOKEN", "db_password", "AWS_SECRET_ACCESS_KEY", "DOCKET_SANDBOX=fake"}},
		{"sandboxed with network", events.SandboxPlan{Mode: ModeReadOnly, Network: true}, false,
			[]string{"DOCKET_SANDBOX=linux"}, []string{"DOCKET_SANDBOX_NETWORK_DISABLED", "GH_TOKEN"}},
		{"unsandboxed sets nothing", events.SandboxPlan{Mode: ModeNone}, false,
			[]string{"PLAIN=1", "DOCKET_SANDBOX=fake"}, []string{"DOCKET_SANDBOX=linux", "GH_TOKEN"}},
		{"secrets kept when asked", events.SandboxPlan{Mode: ModeReadOnly}, true,
			[]string{"OPENAI_API_KEY=sk-1", "GH_TOKEN=t"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, Request{Argv: []string{"env"}, Env: base, KeepSecretEnv: tt.keep, Plan: tt.plan})
			lines := strings.Split(out.Stdout, "\n")
			for _, w := range tt.want {
				if !slices.Contains(lines, w) {
					t.Errorf("missing %s in %q", w, out.Stdout)
				}
			}
			for _, g := range tt.gone {
				if strings.Contains(out.Stdout, g) {
					t.Errorf("%s should be gone: %q", g, out.Stdout)
				}
			}
		})
	}
}

func TestLayersReported(t *testing.T) {
	caps := Probe()
	w := t.TempDir()
	ll := fmt.Sprintf("landlock:v%d", caps.LandlockABI)
	tests := []struct {
		name string
		caps Capabilities
		plan events.SandboxPlan
		want []string
	}{
		{"root: capabilities cut, no user namespace", caps, events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w}},
			[]string{ll, layers.Seccomp, layers.Caps, layers.MountNS, layers.PIDNS, layers.NetNS, layers.IPCNS, layers.UTSNS, layers.GitDirs, layers.UnixSockets, layers.Devpts}},
		{"network on has no netns", caps, events.SandboxPlan{Mode: ModeReadOnly, Network: true},
			[]string{ll, layers.Seccomp, layers.Caps, layers.MountNS, layers.PIDNS, layers.IPCNS, layers.UTSNS, layers.Devpts}},
		{"through a user namespace", Capabilities{LandlockABI: caps.LandlockABI, Seccomp: true, UserNamespaces: true},
			events.SandboxPlan{Mode: ModeReadOnly}, []string{ll, layers.Seccomp, layers.Caps, layers.UserNS, layers.MountNS, layers.PIDNS, layers.NetNS, layers.IPCNS, layers.UTSNS, layers.UnixSockets, layers.Devpts}},
		{"no namespaces at all", Capabilities{LandlockABI: caps.LandlockABI, Seccomp: true},
			events.SandboxPlan{Mode: ModeReadOnly}, []string{ll, layers.Seccomp, layers.Caps}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !caps.UserNamespaces || !caps.Root {
				t.Skip("needs root with user namespaces to try every setup")
			}
			c := tt.caps
			out := mustRun(t, Request{Argv: []string{"true"}, Cwd: w, Plan: tt.plan, Caps: &c})
			if !slices.Equal(out.Layers, tt.want) {
				t.Errorf("layers = %v, want %v", out.Layers, tt.want)
			}
		})
	}
}

func TestFailsClosed(t *testing.T) {
	caps := Probe()
	w := t.TempDir()
	marker := filepath.Join(w, "ran")
	argv := []string{"touch", marker}
	protected := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w},
		ReadOnlySubpaths: []string{filepath.Join(w, ".git")}, RequireProtectedPaths: true}
	tests := []struct {
		name    string
		caps    Capabilities
		plan    events.SandboxPlan
		missing string
	}{
		{"no landlock", Capabilities{Seccomp: true, UserNamespaces: true}, events.SandboxPlan{Mode: ModeReadOnly}, "landlock"},
		{"no seccomp", Capabilities{LandlockABI: caps.LandlockABI, UserNamespaces: true}, events.SandboxPlan{Mode: ModeReadOnly}, layers.Seccomp},
		{"protected paths required without namespaces", Capabilities{LandlockABI: caps.LandlockABI, Seccomp: true}, protected, layers.MountNS},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.caps
			_, err := Run(context.Background(), Request{Argv: argv, Cwd: w, Plan: tt.plan, Caps: &c})
			var ue *UnavailableError
			if !errors.As(err, &ue) || !slices.Contains(ue.Missing, tt.missing) || ue.Hint == "" {
				t.Fatalf("err = %v, want an UnavailableError missing %q with a hint", err, tt.missing)
			}
			if exists(marker) {
				t.Fatal("the command ran although the sandbox was unavailable")
			}
		})
	}
	t.Run("protected paths not required degrade to landlock only", func(t *testing.T) {
		c := Capabilities{LandlockABI: caps.LandlockABI, Seccomp: true}
		plan := protected
		plan.RequireProtectedPaths = false
		out := mustRun(t, Request{Argv: argv, Cwd: w, Plan: plan, Caps: &c})
		if slices.Contains(out.Layers, layers.MountNS) || !exists(marker) {
			t.Errorf("layers = %v, ran = %t; want the run without mountns recorded", out.Layers, exists(marker))
		}
	})
}

func TestWorkingDirectoryInsideAProtectedPath(t *testing.T) {
	w := t.TempDir()
	git := filepath.Join(w, ".git")
	if err := os.Mkdir(git, 0o755); err != nil {
		t.Fatal(err)
	}
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w}, ReadOnlySubpaths: []string{git}}
	// The helper must re-enter its cwd after mounting, or "." would still
	// be the writable directory underneath the read-only bind.
	out := mustRun(t, Request{Argv: []string{"touch", "./hook"}, Cwd: git, Plan: plan})
	if out.ExitCode == 0 || exists(filepath.Join(git, "hook")) {
		t.Fatalf("wrote into .git through the working directory: %+v", out)
	}
}

func TestStubsDoNotOutliveConcurrentRuns(t *testing.T) {
	w := t.TempDir()
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w},
		ReadOnlySubpaths: []string{filepath.Join(w, ".docket"), filepath.Join(w, ".agents")}}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	// As docket's runs do: the last run out knows from the records that
	// another made the stub.
	records := filepath.Join(t.TempDir(), "stubs")
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := Run(context.Background(), Request{Argv: []string{"sh", "-c", "test -d .docket && ! mkdir .docket/x"}, Cwd: w, Plan: plan, StubRecords: records})
			if err != nil || out.ExitCode != 0 {
				errs <- fmt.Sprintf("err=%v exit=%d stderr=%q", err, out.ExitCode, out.Stderr)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for _, p := range []string{".docket", ".agents"} {
		if exists(filepath.Join(w, p)) {
			t.Errorf("stub %s left behind", p)
		}
	}
}

func TestPreexistingEmptyDirectoryIsKept(t *testing.T) {
	w := t.TempDir()
	agents := filepath.Join(w, ".agents")
	if err := os.Mkdir(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w}, ReadOnlySubpaths: []string{agents}}
	mustRun(t, Request{Argv: []string{"true"}, Cwd: w, Plan: plan})
	if !exists(agents) {
		t.Error("the user's own empty .agents was removed")
	}
}

func TestRunRejectsBadRequests(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"empty argv", Request{Plan: events.SandboxPlan{Mode: ModeNone}}, "empty argv"},
		{"no mode", Request{Argv: []string{"true"}}, "no mode"},
		{"unknown mode", Request{Argv: []string{"true"}, Plan: events.SandboxPlan{Mode: "full"}}, `unknown plan mode "full"`},
		{"relative root", Request{Argv: []string{"true"}, Plan: events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{"src"}}}, `writable root "src" is not absolute`},
		{"missing cwd", Request{Argv: []string{"true"}, Cwd: "/nonexistent/dir", Plan: events.SandboxPlan{Mode: ModeNone}}, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestDanglingSymlinkAsProtectedPath(t *testing.T) {
	w := t.TempDir()
	outside := filepath.Join(t.TempDir(), "nowhere")
	if err := os.Symlink("rules-target", filepath.Join(w, ".docket")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w, ".agents")); err != nil {
		t.Fatal(err)
	}
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w},
		ReadOnlySubpaths: []string{filepath.Join(w, ".docket"), filepath.Join(w, ".agents")}}
	// Creating the link's target would create .docket through the back door.
	out := mustRun(t, Request{Argv: []string{"mkdir", "-p", "rules-target/rules"}, Cwd: w, Plan: plan})
	if out.ExitCode == 0 || exists(filepath.Join(w, "rules-target")) {
		t.Errorf("created the target of a protected symlink: exit=%d stderr=%q", out.ExitCode, out.Stderr)
	}
	if exists(outside) {
		t.Error("docket created a stub outside the writable roots")
	}
}

func TestLoaderVariablesReachTheCommandNotTheHelper(t *testing.T) {
	// A preload library that does not exist would make the dynamic loader
	// complain in every process it is given to; only the command may get it.
	env := append(os.Environ(), "LD_PRELOAD=/nonexistent/docket-test.so")
	out := mustRun(t, Request{Argv: []string{"sh", "-c", `echo "$LD_PRELOAD"`}, Env: env, Plan: events.SandboxPlan{Mode: ModeReadOnly}})
	if out.ExitCode != 0 || !strings.Contains(out.Stdout, "/nonexistent/docket-test.so") {
		t.Fatalf("the command lost LD_PRELOAD: %+v", out)
	}
	if n := strings.Count(out.Stderr, "docket-test.so"); n != 1 {
		t.Errorf("loader warnings: %d, want 1 (the command's own sh): %q", n, out.Stderr)
	}
}

func TestHelperRefusesABadSpec(t *testing.T) {
	spec := fmt.Sprintf(`{"v":%d,"seccomp":"AAAAAAAAAAA=","mode":"bogus"}`, proto.Version)
	cmd := exec.Command(testBinary(t), HelperArg, spec, "--", "true")
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != proto.ExitSetup || !strings.Contains(string(out), `mode "bogus"`) {
		t.Fatalf("err=%v output=%q, want exit %d naming the mode", err, out, proto.ExitSetup)
	}
}

func TestStubsKeptForTheSession(t *testing.T) {
	w := t.TempDir()
	docket := filepath.Join(w, ".docket")
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w}, ReadOnlySubpaths: []string{docket}}
	var ph stubs.Keeper
	for i := 0; i < 2; i++ {
		out := mustRun(t, Request{Argv: []string{"mkdir", ".docket/rules"}, Cwd: w, Plan: plan, Stubs: &ph})
		if out.ExitCode == 0 {
			t.Fatalf("run %d created .docket/rules", i)
		}
		st, err := os.Stat(docket)
		if err != nil || st.Mode().Perm() != stubs.Mode {
			t.Fatalf("run %d: stub not kept between runs: %v %v", i, st, err)
		}
	}
	// Someone on the host removes it between runs: the next run makes it again.
	if err := os.Remove(docket); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, Request{Argv: []string{"mkdir", ".docket"}, Cwd: w, Plan: plan, Stubs: &ph}); out.ExitCode == 0 {
		t.Fatal("created .docket after the stub was removed on the host")
	}
	if err := ph.Close(); err != nil {
		t.Fatal(err)
	}
	if exists(docket) {
		t.Error("Close left the stub behind")
	}
}
