package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// unix_sockets = "none" through the binary. The sandbox covers the unix
// sockets bound in docket's own network namespace; a socket bound in
// another one (a container's) is not in docket's /proc/net/unix, so a
// sandboxed command reaches it: the attack works without the rule. With
// the profile's none entry the socket is covered like a hidden path.
func TestSandboxUnixSocketNone(t *testing.T) {
	bin := cliBinary(t)
	home, work := t.TempDir(), t.TempDir()
	dir, err := os.MkdirTemp("/var/tmp", "docket-sock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "agent.sock")
	// The server lives in a network namespace of its own, as a
	// container's daemon would.
	srv := exec.Command("unshare", "-n", "socat", "UNIX-LISTEN:"+sock+",fork", "SYSTEM:echo secret-from-outside")
	if err := srv.Start(); err != nil {
		t.Fatalf("start the socket server in another network namespace: %v", err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	for i := 0; ; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if i == 1000 {
			t.Fatalf("the socket server never bound %s (unshare -n needs CAP_SYS_ADMIN)", sock)
		}
		time.Sleep(10 * time.Millisecond)
	}
	config := fmt.Sprintf(`[permissions.plain.filesystem]
":root" = "read"

[permissions.nosock.filesystem]
":root" = "read"

[permissions.nosock.network.unix_sockets]
%q = "none"
`, sock)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(profile string) (int, string) {
		cmd := exec.Command(bin, "sandbox", "-C", work, "--permissions", profile, "--", "socat", "-", "UNIX-CONNECT:"+sock)
		cmd.Env = []string{"DOCKET_HOME=" + home, "HOME=" + home, "PATH=/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	if code, out := run("plain"); code != 0 || !strings.Contains(out, "secret-from-outside") {
		t.Fatalf("without the rule the sandboxed command did not reach the other namespace's socket (exit %d), so the test shows nothing:\n%s", code, out)
	}
	if code, out := run("nosock"); code == 0 || strings.Contains(out, "secret-from-outside") || !strings.Contains(out, "Connection refused") {
		t.Fatalf("unix_sockets none: the command reached the socket: exit %d\n%s", code, out)
	}
}
