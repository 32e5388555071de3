package sandboxd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// peerEnv makes this test binary a caller that connects to the socket it
// names and waits for the daemon side to hang up.
const peerEnv = "SANDBOXD_TEST_PEER_SOCKET"

func TestMain(m *testing.M) {
	if path := os.Getenv(peerEnv); path != "" {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_SEQPACKET, 0)
		if err == nil {
			err = unix.Connect(fd, &unix.SockaddrUnix{Name: path})
		}
		if err != nil {
			os.Exit(3)
		}
		buf := make([]byte, 16)
		_, _, _ = unix.Recvfrom(fd, buf, 0) // until the test side closes
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestCheckPeerRefusesACallerMoreConfinedThanTheDaemon(t *testing.T) {
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := statusInt(self.status, "NoNewPrivs"); v != 0 {
		t.Skip("this test runs under no_new_privs: no caller can be more confined in that way")
	}
	dir, err := os.MkdirTemp("", "sdp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	path := filepath.Join(dir, "s.sock")
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	cases := []struct {
		name    string
		wrap    []string // program and arguments before this binary
		needs   string
		refused string // "" when the caller is accepted
	}{
		{name: "the user's own unconfined process", refused: ""},
		{name: "no_new_privs set", wrap: []string{"setpriv", "--no-new-privs"}, needs: "setpriv", refused: "NoNewPrivs"},
		{name: "another mount namespace", wrap: []string{"unshare", "--mount"}, needs: "unshare", refused: "another mnt namespace"},
		{name: "another user namespace", wrap: []string{"unshare", "--user"}, needs: "unshare", refused: "another user namespace"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needs != "" {
				if _, err := exec.LookPath(tc.needs); err != nil {
					t.Skipf("%s not installed", tc.needs)
				}
			}
			argv := append(append([]string{}, tc.wrap...), os.Args[0], "-test.run=^$")
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = append(os.Environ(), peerEnv+"="+path)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			c, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			got := c.Check(self)
			_ = c.Close()
			if err := cmd.Wait(); err != nil {
				// An unprivileged machine may refuse the wrapper itself.
				if tc.refused != "" && strings.Contains(stderr.String(), "unshare failed") {
					t.Skipf("%s: %s", tc.needs, stderr.String())
				}
			}
			switch {
			case tc.refused == "" && got != nil:
				t.Errorf("refused: %v", got)
			case tc.refused != "" && (got == nil || !strings.Contains(got.Error(), tc.refused)):
				t.Errorf("check: %v, want a refusal naming %q", got, tc.refused)
			}
		})
	}
}
