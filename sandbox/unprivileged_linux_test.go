package sandbox

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/layers"
)

// unprivilegedEnv carries the workspace to TestUnprivilegedInner.
const unprivilegedEnv = "DOCKET_TEST_UNPRIVILEGED_WS"

// TestUnprivilegedUser runs TestUnprivilegedInner as nobody: the sandbox
// must get every layer without root, through a user namespace.
func TestUnprivilegedUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch to an unprivileged user")
	}
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	dir, err := os.MkdirTemp("", "docket-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{ws, filepath.Join(ws, ".git")} {
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	// A copy of this binary that nobody may run (go test's own dir is 0700).
	bin := filepath.Join(dir, "sandbox.test")
	if err := copyFile(testBinary(t), bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestUnprivilegedInner$", "-test.v")
	cmd.Env = append(os.Environ(), unprivilegedEnv+"="+ws)
	cmd.Dir = ws
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestUnprivilegedInner") ||
		!strings.Contains(string(out), "--- PASS: TestUnprivilegedInner/sandbox_server") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

func TestUnprivilegedInner(t *testing.T) {
	ws := os.Getenv(unprivilegedEnv)
	if ws == "" {
		t.Skip("run by TestUnprivilegedUser")
	}
	if os.Geteuid() == 0 {
		t.Fatal("still root")
	}
	// Once with a helper per call, once through a session's sandbox server
	// (made through a user namespace too).
	servers := &Servers{}
	defer servers.Close()
	for _, via := range []*Servers{nil, servers} {
		name := "helper per call"
		if via != nil {
			name = "sandbox server"
		}
		t.Run(name, func(t *testing.T) {
			for _, p := range []string{"ok", ".git/hook", ".docket"} {
				os.RemoveAll(filepath.Join(ws, p))
			}
			unprivilegedRun(t, ws, via)
		})
	}
}

// unprivilegedRun checks one sandboxed run as nobody.
func unprivilegedRun(t *testing.T, ws string, servers *Servers) {
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{ws},
		ReadOnlySubpaths: []string{filepath.Join(ws, ".git"), filepath.Join(ws, ".docket")}}
	out, err := Run(context.Background(), Request{
		// The command's sets and every thread of the helper's init (PID 1),
		// bounding sets included: the user namespace's capabilities must
		// not outlive the mounts.
		Argv: []string{"sh", "-c", "grep -E '^Cap(Inh|Prm|Eff|Amb|Bnd)' /proc/self/status /proc/1/task/*/status; touch ok; touch .git/hook; mkdir .docket"},
		Cwd:  ws, Plan: plan, Launcher: servers,
	})
	if err != nil {
		t.Fatal(err)
	}
	if servers != nil && serversRunning(servers) != 1 {
		t.Errorf("the run did not go through a sandbox server")
	}
	for _, l := range []string{layers.Caps, layers.UserNS, layers.MountNS, layers.PIDNS, layers.NetNS, layers.IPCNS, layers.UTSNS} {
		if !slices.Contains(out.Layers, l) {
			t.Errorf("layer %s missing: %v", l, out.Layers)
		}
	}
	lines := strings.Split(strings.TrimSpace(out.Stdout), "\n")
	if len(lines) < 10 {
		t.Errorf("read %d capability lines, want the command's and several threads' of PID 1: %q", len(lines), out.Stdout)
	}
	for _, line := range lines {
		if !strings.HasSuffix(line, "0000000000000000") {
			t.Errorf("the command holds capabilities: %s", line)
		}
	}
	if !exists(filepath.Join(ws, "ok")) {
		t.Errorf("could not write the workspace: %q", out.Stderr)
	}
	if exists(filepath.Join(ws, ".git", "hook")) || exists(filepath.Join(ws, ".docket")) {
		t.Errorf("wrote a protected path: %q", out.Stderr)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
