package egress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docket-engine/docket/sandbox/bridge"
)

// probes is what the sandboxed command tries, one line each: through the
// bridge (HTTP, CONNECT, SOCKS5), and every way around it.
const probes = `
echo "proxied: $(curl -sS --max-time 10 http://allowed.test:$P/ 2>&1)"
echo "https: $(curl -sS --max-time 10 -k https://allowed.test:$TP/ 2>&1)"
echo "socks: $(curl -sS --max-time 10 -x socks5h://127.0.0.1:3128 http://allowed.test:$P/ 2>&1)"
echo "denied: $(curl -sS --max-time 10 http://denied.test:$P/ 2>&1)"
echo "literal: $(curl -sS --max-time 10 http://127.0.0.1:$P/ 2>&1)"
echo "direct: $( (NO_PROXY='*' no_proxy='*' curl -sS --max-time 5 http://127.0.0.1:$P/ 2>&1 || echo FAILED) | tr '\n' ' ')"
echo "ipv6: $( (curl --noproxy '*' -sS --max-time 5 "http://[::1]:$P/" 2>&1 || echo FAILED) | tr '\n' ' ')"
echo "dns: $( ( (echo x > /dev/udp/1.1.1.1/53) 2>&1 || echo FAILED) | tr '\n' ' ')"
`

// checkProbes asserts each probe's outcome.
func checkProbes(t *testing.T, out string) {
	t.Helper()
	want := map[string][]string{
		"proxied": {"host=allowed.test"},
		"https":   {"tls host=allowed.test"},
		"socks":   {"host=allowed.test"},
		"denied":  {"refused", "denied.test"},
		"literal": {"refused", "an IP address"},
		"direct":  {"FAILED"},
		"ipv6":    {"FAILED"},
		"dns":     {"FAILED"},
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, ": "); ok {
			lines[k] = v
		}
	}
	for k, subs := range want {
		for _, s := range subs {
			if !strings.Contains(lines[k], s) {
				t.Errorf("%s: %q, want it to contain %q", k, lines[k], s)
			}
		}
	}
	if strings.Contains(lines["direct"], "host=") || strings.Contains(lines["ipv6"], "host=") {
		t.Errorf("a direct connection got through: %q", out)
	}
}

// bridgeSetup starts the upstreams and shows the direct attack works
// outside a namespace.
func bridgeSetup(t *testing.T) (port, tlsPort string) {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	_, port, _ = upstream(t)
	tlsPort = tlsUpstream(t)
	out, err := exec.Command("curl", "-sS", "--noproxy", "*", "--max-time", "5", "http://127.0.0.1:"+port+"/").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "host=") {
		t.Fatalf("without a namespace the direct connection should work: %q %v", out, err)
	}
	return port, tlsPort
}

func serveBridge(t *testing.T, h *harness, ln net.Listener) {
	t.Helper()
	ctx, cancel := context.WithCancel(WithCallID(context.Background(), "call_1"))
	done := make(chan struct{})
	go func() { _ = h.proxy.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func TestABridgeHandedOutFromInsideTheNamespace(t *testing.T) {
	port, tlsPort := bridgeSetup(t)
	h := startProxy(t, "full", nil)
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	ours, theirs := os.NewFile(uintptr(pair[0]), "ours"), os.NewFile(uintptr(pair[1]), "theirs")
	defer ours.Close()
	cmd := exec.Command(os.Args[0])
	cmd.Env = []string{childEnv + "=1", "P=" + port, "TP=" + tlsPort, "SCRIPT=" + probes}
	cmd.ExtraFiles = []*os.File{theirs}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}}
	if err := cmd.Start(); err != nil {
		t.Skipf("no user and network namespaces here: %v", err)
	}
	theirs.Close()
	c, err := net.FileConn(ours)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := bridge.ReceiveListener(context.Background(), c.(*net.UnixConn))
	c.Close()
	if err != nil {
		_ = cmd.Wait()
		t.Fatalf("%v; child: %s", err, out.String())
	}
	serveBridge(t, h, ln)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("command: %v\n%s", err, out.String())
	}
	checkProbes(t, out.String())
	if ev := h.rec.nth(t, 1); ev.CallID != "call_1" {
		t.Errorf("first event = %+v", ev)
	}
}

func TestListenInServesACommandsNamespaceFromDocket(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("entering another network namespace needs CAP_SYS_ADMIN in the initial user namespace (root)")
	}
	port, tlsPort := bridgeSetup(t)
	h := startProxy(t, "full", nil)
	cmd := exec.Command("/bin/bash", "-c", "read go; "+probes)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "P=" + port, "TP=" + tlsPort}, bridge.Env()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Skipf("no network namespace here: %v", err)
	}
	ln, err := bridge.ListenIn(fmt.Sprintf("/proc/%d/ns/net", cmd.Process.Pid), bridge.Port)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatal(err)
	}
	serveBridge(t, h, ln)
	fmt.Fprintln(stdin, "go")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("command: %v\n%s", err, out.String())
	}
	checkProbes(t, out.String())
}

func TestReceiveListenerRefusesWhatIsNotAListener(t *testing.T) {
	a, b := socketPair(t)
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := bridge.SendListener(a, f); err != nil {
		t.Fatal(err)
	}
	if _, err := bridge.ReceiveListener(context.Background(), b); err == nil || !strings.Contains(err.Error(), "not a listening socket") {
		t.Fatalf("a file passed as the listener: %v", err)
	}
}

func socketPair(t *testing.T) (*net.UnixConn, *net.UnixConn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	conns := make([]*net.UnixConn, 2)
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "pair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c.(*net.UnixConn)
		t.Cleanup(func() { c.Close() })
	}
	return conns[0], conns[1]
}

// A helper that holds its end of the channel open and never sends kept
// ReceiveListener, and the call's bridge with it, waiting past the run's
// end: the end of ctx must end the wait.
func TestReceiveListenerEndsWithItsContext(t *testing.T) {
	cases := []struct {
		name   string
		cancel func(context.CancelFunc)
	}{
		{"cancelled before", func(c context.CancelFunc) { c() }},
		{"cancelled while waiting", func(c context.CancelFunc) { go c() }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, b := socketPair(t) // the sender stays open and silent
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				ln, err := bridge.ReceiveListener(ctx, b)
				if ln != nil {
					ln.Close()
				}
				done <- err
			}()
			tc.cancel(cancel)
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("ReceiveListener after its context ended: %v, want context.Canceled", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("ReceiveListener still waits 30 s after its context ended")
			}
		})
	}
}
