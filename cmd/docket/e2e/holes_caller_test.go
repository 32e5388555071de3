//go:build linux

package e2e

// What the hole tests (sandbox_holes_test.go) share: a caller with an
// environment of its own, the processes it left, an install of docket, a
// victim's directory and a pids cgroup.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holeCaller is one test's caller: TMPDIR a directory of its own,
// XDG_RUNTIME_DIR unset (the removed daemon then lived in
// $TMPDIR/docket-UID, a writable root of workspace-write), and a marker
// variable that finds every process started with this environment.
type holeCaller struct {
	tmp    string
	env    []string
	marker string
}

func newHoleCaller(t *testing.T) *holeCaller {
	t.Helper()
	// Short: a unix socket's path has a bound.
	tmp, err := os.MkdirTemp("", "dh")
	if err != nil {
		t.Fatal(err)
	}
	c := &holeCaller{tmp: tmp, marker: "DOCKET_E2E_CALLER=" + tmp}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		// The removed front's switches too: the caller must not turn it off.
		case "XDG_RUNTIME_DIR", "TMPDIR", "DOCKET_SANDBOX_DAEMON", "DOCKET_SANDBOX_DAEMON_IDLE", roleEnv, callerEnv:
			continue
		}
		c.env = append(c.env, kv)
	}
	c.env = append(c.env, "TMPDIR="+tmp, c.marker)
	t.Cleanup(func() {
		for _, pid := range lingering(c.marker) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		waitFor(func() bool { return len(lingering(c.marker)) == 0 })
		_ = os.RemoveAll(tmp)
	})
	return c
}

// daemonDir is where the removed daemon kept its socket and lock for c.
func (c *holeCaller) daemonDir() string {
	return filepath.Join(c.tmp, fmt.Sprintf("docket-%d", os.Getuid()))
}

// command is argv in dir with c's environment and extra.
func (c *holeCaller) command(dir string, extra []string, argv ...string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, c.env...), extra...)
	return cmd
}

// run runs argv in dir with c's environment and extra, to the end.
func (c *holeCaller) run(t *testing.T, dir string, extra []string, argv ...string) result {
	t.Helper()
	cmd := c.command(dir, extra, argv...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("run %q: %v", argv, err)
	}
	return r
}

// warm makes a plain call with docket, as the user would have before the
// attack, and waits until what it left (if anything) serves.
func (c *holeCaller) warm(t *testing.T, docket string) {
	t.Helper()
	if r := c.run(t, t.TempDir(), nil, docket, "sandbox", "--", "true"); r.code != 0 {
		t.Fatalf("a plain docket sandbox call: exit %d: %s", r.code, r.stderr)
	}
	c.settle(t)
}

// settle waits until every process with c's marker that names a socket
// to serve (`--socket PATH`, the removed daemon's command line) has it in
// place. With one process per call there is none, and it returns at once.
func (c *holeCaller) settle(t *testing.T) {
	t.Helper()
	ok := waitFor(func() bool {
		for _, pid := range lingering(c.marker) {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			args := strings.Split(string(b), "\x00")
			for i, a := range args {
				if a == "--socket" && i+1 < len(args) {
					if _, err := os.Stat(args[i+1]); err != nil {
						return false
					}
				}
			}
		}
		return true
	})
	if !ok {
		t.Fatal("a process left by a docket sandbox call never served its socket")
	}
}

// lingering lists the processes, other than this one, whose environment
// holds marker.
func lingering(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(b), "\x00") {
			if kv == marker {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// install copies docket as `make build` installs it into dir/bin and
// returns the path of docket there.
func install(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range installFiles(t) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(bin, "docket")
}

// outside is a directory outside every root of workspace-write (the
// working directory, /tmp and $TMPDIR): a victim's.
func outside(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "docket-e2e-victim-")
	if err != nil {
		t.Fatalf("a directory outside the writable roots: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

// pidsCgroup makes a pids cgroup of at most max tasks (v1, or v2 at the
// root where the pids controller is enabled) and returns its procs file.
func pidsCgroup(t *testing.T, max int) string {
	t.Helper()
	var dir, limit string
	switch {
	case isDir("/sys/fs/cgroup/pids"):
		dir, limit = filepath.Join("/sys/fs/cgroup/pids", fmt.Sprintf("docket-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())), "pids.max"
	default:
		b, _ := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control")
		if !strings.Contains(string(b), "pids") {
			t.Skip("no pids cgroup this test may make (v1 pids hierarchy or v2 root with pids enabled)")
		}
		dir, limit = filepath.Join("/sys/fs/cgroup", fmt.Sprintf("docket-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())), "pids.max"
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("no pids cgroup this test may make: %v", err)
	}
	t.Cleanup(func() {
		waitFor(func() bool { return os.Remove(dir) == nil })
	})
	if err := os.WriteFile(filepath.Join(dir, limit), []byte(strconv.Itoa(max)), 0); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "cgroup.procs")
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
