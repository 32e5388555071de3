package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// daemonEnv gives a test a sandbox daemon of its own (its own runtime
// directory), stopped when the test ends, and idling out soon if it is not.
func daemonEnv(t *testing.T) []string {
	t.Helper()
	rt, err := os.MkdirTemp("", "dsd") // short: the socket's path has a bound
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range daemonPIDs(rt) {
			stopProcess(t, pid)
		}
		_ = os.RemoveAll(rt)
	})
	return []string{"XDG_RUNTIME_DIR=" + rt, "DOCKET_SANDBOX_DAEMON_IDLE=2m"}
}

// daemonPIDs reads the pids the daemons under rt wrote into their locks.
func daemonPIDs(rt string) []int {
	locks, _ := filepath.Glob(filepath.Join(rt, "docket", "*.lock"))
	var pids []int
	for _, l := range locks {
		b, err := os.ReadFile(l)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}

// startDaemon makes the front start the daemon (its first call runs in
// docket-core) and waits until the daemon serves.
func startDaemon(t *testing.T, env []string) int {
	t.Helper()
	if r := runIn(t, frontBin, t.TempDir(), env, "sandbox", "--", "true"); r.code != 0 {
		t.Fatalf("first call: exit %d: %s", r.code, r.stderr)
	}
	rt := strings.TrimPrefix(env[0], "XDG_RUNTIME_DIR=")
	deadline := time.Now().Add(30 * time.Second)
	for {
		req := append(env[:len(env):len(env)], "DOCKET_SANDBOX_DAEMON=require")
		if pids := daemonPIDs(rt); len(pids) == 1 {
			if r := runIn(t, frontBin, t.TempDir(), req, "sandbox", "--", "true"); r.code == 0 {
				return pids[0]
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sandbox daemon serving under %s after 30s", rt)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stopProcess ends pid with SIGTERM, then SIGKILL if it lingers.
func stopProcess(t *testing.T, pid int) {
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(20 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("pid %d outlived SIGTERM by 20s", pid)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sleepers lists the pids of `sleep SECONDS` processes.
func sleepers(seconds string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && string(b) == "sleep\x00"+seconds+"\x00" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitGone waits until no `sleep SECONDS` runs.
func waitGone(t *testing.T, seconds string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(sleepers(seconds)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("sleep %s still runs: %v", seconds, sleepers(seconds))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSandboxThroughTheDaemonIsDocketCoresCall(t *testing.T) {
	t.Parallel()
	env := daemonEnv(t)
	startDaemon(t, env)
	cases := []struct {
		name string
		env  []string
		args []string
	}{
		{name: "output, error output and the exit status",
			args: []string{"sandbox", "-s", "workspace-write", "--", "sh", "-c", "echo out; echo err >&2; exit 3"}},
		{name: "a write outside the roots fails",
			args: []string{"sandbox", "-s", "workspace-write", "--", "sh", "-c", "echo x > /etc/docket-daemon-test"}},
		{name: "-C and --writable-root are the caller's relative paths",
			args: []string{"sandbox", "-s", "workspace-write", "-C", "sub", "--writable-root", "extra", "--", "sh", "-c", "pwd; touch ../extra/made && echo made"}},
		{name: "the command gets the caller's environment",
			env:  []string{"DOCKET_DAEMON_TEST_VAR=from-the-caller"},
			args: []string{"sandbox", "--", "sh", "-c", "echo $DOCKET_DAEMON_TEST_VAR"}},
		{name: "a usage error",
			args: []string{"sandbox", "-s", "nope", "--", "true"}},
		{name: "the forecast",
			args: []string{"sandbox", "--explain", "-s", "workspace-write"}},
		{name: "the plan and the layers",
			args: []string{"sandbox", "--verbose", "-s", "read-only", "--", "true"}},
		{name: "a command that does not exist",
			args: []string{"sandbox", "--", "docket-no-such-command"}},
		{name: "arguments JSON must escape",
			env:  []string{"DOCKET_DAEMON_TEST_VAR=\"\\\t\x01é"},
			args: []string{"sandbox", "--", "sh", "-c", `printf '%s|' "$@" "$DOCKET_DAEMON_TEST_VAR"`, "sh", `q"uote`, `back\slash`, "tab\tx", "nl\nx", "ctl\x01\x1fx", "ünï 日本 \u2028", "<&>", ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got [2]result
			for i, bin := range []string{docketBin, frontBin} {
				dir := t.TempDir()
				for _, d := range []string{"sub", "extra"} {
					if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				e := append(append([]string{}, env...), tc.env...)
				if bin == frontBin {
					e = append(e, "DOCKET_SANDBOX_DAEMON=require")
				}
				got[i] = runIn(t, bin, dir, e, tc.args...)
				// The paths differ by directory: compare them as DIR.
				got[i].stdout = strings.ReplaceAll(got[i].stdout, dir, "DIR")
				got[i].stderr = strings.ReplaceAll(got[i].stderr, dir, "DIR")
			}
			core, front := got[0], got[1]
			if core.code != front.code || core.stdout != front.stdout || core.stderr != front.stderr {
				t.Errorf("docket-core: exit %d\nstdout %q\nstderr %q\nthrough the daemon: exit %d\nstdout %q\nstderr %q",
					core.code, core.stdout, core.stderr, front.code, front.stdout, front.stderr)
			}
		})
	}
	if _, err := os.Stat("/etc/docket-daemon-test"); err == nil {
		t.Error("a sandboxed call wrote /etc/docket-daemon-test")
	}
}

func TestSandboxDaemonRefusesASandboxedCaller(t *testing.T) {
	t.Parallel()
	env := append(daemonEnv(t), "DOCKET_SANDBOX_DAEMON=require")
	startDaemon(t, env[:len(env)-1])
	out := t.TempDir() // outside every root of a read-only sandbox
	// The attack: a command asks the daemon for a call without the sandbox.
	attack := func(file string) []string {
		return []string{frontBin, "sandbox", "-s", "danger-full-access", "--", "sh", "-c", "echo pwned > " + filepath.Join(out, file)}
	}
	// Without the sandbox the daemon runs it: the call is the caller's own.
	if r := runIn(t, frontBin, t.TempDir(), env, attack("unsandboxed")[1:]...); r.code != 0 {
		t.Fatalf("unsandboxed caller: exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "unsandboxed")); err != nil {
		t.Fatalf("the attack does not work even without the sandbox: %v", err)
	}
	for _, tc := range []struct{ name, file string }{
		{"network on, the socket reachable", "network"},
		{"network off", "offline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"sandbox", "-s", "read-only"}
			if tc.file == "network" {
				args = append(args, "--network")
			}
			args = append(append(args, "--"), attack(tc.file)...)
			r := runIn(t, frontBin, t.TempDir(), env, args...)
			if _, err := os.Stat(filepath.Join(out, tc.file)); err == nil {
				t.Fatalf("a sandboxed command ran a call without the sandbox through the daemon (exit %d): %s", r.code, r.stderr)
			}
			if r.code != 125 {
				t.Errorf("inner call: exit %d, want 125 (not served): %s", r.code, r.stderr)
			}
			if tc.file == "network" && !strings.Contains(r.stderr, "refused") {
				t.Errorf("the daemon did not say it refused the caller: %s", r.stderr)
			}
		})
	}
}

func TestSandboxDaemonInterruptStopsTheCommand(t *testing.T) {
	t.Parallel()
	env := append(daemonEnv(t), "DOCKET_SANDBOX_DAEMON=require")
	startDaemon(t, env[:len(env)-1])
	marker := "61.125"
	cmd := exec.Command(frontBin, "sandbox", "--", "sleep", marker)
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { return len(sleepers(marker)) > 0 }) {
		t.Fatalf("sleep %s never started", marker)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Errorf("interrupted call: %v, want a non-zero exit", err)
	}
	waitGone(t, marker)
}

func TestSandboxDaemonDeathFailsClosed(t *testing.T) {
	t.Parallel()
	env := append(daemonEnv(t), "DOCKET_SANDBOX_DAEMON=require")
	pid := startDaemon(t, env[:len(env)-1])
	marker := "61.25"
	cmd := exec.Command(frontBin, "sandbox", "--", "sleep", marker)
	cmd.Env = append(os.Environ(), env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { return len(sleepers(marker)) > 0 }) {
		t.Fatalf("sleep %s never started", marker)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 125 || !strings.Contains(errb.String(), "may have run") {
		t.Errorf("call whose daemon died: %v, stderr %q; want exit 125 saying the command may have run", err, errb.String())
	}
	// The command dies with the daemon, and is not run again.
	waitGone(t, marker)
}

func TestFrontHandsEveryOtherCommandToDocketCore(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--version"}, {"no-such-command"}, {"sandbox", "--help"}} {
		core := run(t, docketBin, []string{"DOCKET_SANDBOX_DAEMON=off"}, args...)
		front := run(t, frontBin, []string{"DOCKET_SANDBOX_DAEMON=off"}, args...)
		if core != front {
			t.Errorf("%q: docket-core %+v, front %+v", args, core, front)
		}
	}
}

// The front sends the daemon only what JSON carries unchanged: a call with
// an argument that is not UTF-8 (JSON would make it U+FFFD), or too big
// for one datagram, is docket-core's, and gets its bytes as they are.
func TestFrontLeavesToDocketCoreWhatTheWireWouldChange(t *testing.T) {
	t.Parallel()
	env := daemonEnv(t)
	startDaemon(t, env)
	// Two variables: one string may not pass 128 KiB in an exec.
	big := []string{"DOCKET_DAEMON_TEST_BIG1=" + strings.Repeat("x", 100<<10), "DOCKET_DAEMON_TEST_BIG2=" + strings.Repeat("y", 100<<10)}
	cases := []struct {
		name, why string
		env       []string
		args      []string
		want      string
	}{
		{name: "an argument that is not UTF-8", why: "not UTF-8",
			args: []string{"sandbox", "--", "printf", "%s", "a\xff\xfeb\xed\xa0\x80c"}, want: "a\xff\xfeb\xed\xa0\x80c"},
		{name: "a request over one datagram", why: "over",
			env:  big,
			args: []string{"sandbox", "--", "sh", "-c", "printf %s $((${#DOCKET_DAEMON_TEST_BIG1}+${#DOCKET_DAEMON_TEST_BIG2}))"}, want: "204800"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := append(append([]string{}, env...), tc.env...)
			required := runIn(t, frontBin, t.TempDir(), append(e, "DOCKET_SANDBOX_DAEMON=require"), tc.args...)
			if required.code != 125 || !strings.Contains(required.stderr, tc.why) || required.stdout != "" {
				t.Errorf("required daemon: exit %d, stdout %q, stderr %q; want 125 saying %q and nothing run", required.code, required.stdout, required.stderr, tc.why)
			}
			auto := runIn(t, frontBin, t.TempDir(), e, tc.args...)
			if auto.code != 0 || auto.stdout != tc.want {
				t.Errorf("docket-core's run: exit %d, stdout %q, stderr %q; want %q", auto.code, auto.stdout, auto.stderr, tc.want)
			}
		})
	}
}
