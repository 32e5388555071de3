//go:build linux

package e2e

// The holes the removed per-user sandbox daemon and its C front opened
// (issue 26), each tried through the installed binaries as an attacker
// would. Each test first makes a plain `docket sandbox` call and waits for
// whatever it left serving (settle), so that under the removed design the
// attack met the daemon; today nothing is left, and the calls are one
// process each.

import (
	"bytes"
	"crypto/sha256"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// One process per call: nothing of a call outlives it, and it makes no
// directory, socket or lock in $TMPDIR (where the removed daemon kept them).
func TestSandboxCallLeavesNoProcessNoSocketNoLock(t *testing.T) {
	c := newHoleCaller(t)
	docket := install(t, outside(t))
	for _, mode := range []string{"read-only", "workspace-write", "danger-full-access"} {
		if r := c.run(t, t.TempDir(), nil, docket, "sandbox", "-s", mode, "--", "true"); r.code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, r.code, r.stderr)
		}
		if left := lingering(c.marker); len(left) > 0 {
			t.Errorf("%s: processes outlived the call: %v", mode, left)
		}
		if entries, _ := os.ReadDir(c.tmp); len(entries) > 0 {
			t.Errorf("%s: the call left %s in $TMPDIR", mode, entries[0].Name())
		}
	}
}

// Hole (a): a workspace-write command (network off) replaces the daemon's
// directory in $TMPDIR with its own, whose lock file is a link to a file
// outside every root; the removed daemon truncated it and wrote its pid.
func TestSandboxHoleLockLinkedOutsideTheRoots(t *testing.T) {
	c := newHoleCaller(t)
	docket := install(t, outside(t))
	victim := filepath.Join(outside(t), "victim")
	writeFile(t, victim, "precious\n")
	c.warm(t, docket)
	attack := `d="$TMPDIR/docket-$(id -u)"
if [ -d "$d" ]; then mv "$d" "$d.moved"; fi
mkdir -m 700 "$d"
for s in "$d.moved"/*.sock; do [ -e "$s" ] && ln -s "$VICTIM" "$d/${s##*/}.lock"; done
ln -s "$VICTIM" "$d/sandbox.sock.lock"`
	r := c.run(t, t.TempDir(), []string{"VICTIM=" + victim}, docket, "sandbox", "-s", "workspace-write", "--", "sh", "-ec", attack)
	if r.code != 0 {
		t.Fatalf("the attack did not run in the sandbox: exit %d: %s", r.code, r.stderr)
	}
	if r := c.run(t, t.TempDir(), nil, docket, "sandbox", "--", "true"); r.code != 0 {
		t.Fatalf("the next call: exit %d: %s", r.code, r.stderr)
	}
	c.settle(t)
	if got := readFile(t, victim); got != "precious\n" {
		t.Errorf("the next docket sandbox wrote a file outside every root through the planted lock: %q", got)
	}
	// Without docket's part the trap works: whoever opens the planted lock
	// to write it writes the victim.
	writeFile(t, filepath.Join(c.daemonDir(), "sandbox.sock.lock"), "12283\n")
	if got := readFile(t, victim); got != "12283\n" {
		t.Fatalf("the planted link does not lead to the victim (%q): the attack proves nothing", got)
	}
}

// Hole (b): a command listens at the daemon's socket path; the removed
// front sent it the caller's environment and its stdout and stderr, and
// took its word that the command ran.
func TestSandboxHoleImpostorAtTheDaemonSocket(t *testing.T) {
	c := newHoleCaller(t)
	docket := install(t, outside(t))
	c.warm(t, docket)
	ws := t.TempDir()
	capture, ready := filepath.Join(ws, "capture"), filepath.Join(ws, "ready")
	argv, role := roleCmd("listen", capture, ready, c.daemonDir())
	listener := c.command(ws, []string{role}, append([]string{docket, "sandbox", "-s", "workspace-write", "--"}, argv...)...)
	var lerr bytes.Buffer
	listener.Stderr = &lerr
	if err := listener.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- listener.Wait() }()
	t.Cleanup(func() {
		_ = listener.Process.Signal(syscall.SIGTERM)
		<-done
	})
	if !waitFor(func() bool { _, err := os.Stat(ready); return err == nil }) {
		t.Fatalf("the sandboxed listener never listened: %s", lerr.String())
	}

	const secret = "sk-e2e-secret-4242"
	outFile := filepath.Join(outside(t), "out")
	out, err := os.Create(outFile)
	if err != nil {
		t.Fatal(err)
	}
	call := c.command(t.TempDir(), []string{"DOCKET_E2E_API_KEY=" + secret}, docket, "sandbox", "--", "sh", "-c", "echo the-real-command-ran")
	call.Stdout = out
	var cerr bytes.Buffer
	call.Stderr = &cerr
	err = call.Run()
	_ = out.Close()
	if err != nil {
		t.Errorf("the next call: %v: %s", err, cerr.String())
	}
	if got := readFile(t, outFile); got != "the-real-command-ran\n" {
		t.Errorf("the caller's output file outside the roots holds %q, want only the real command's line", got)
	}
	if got := readFile(t, capture); strings.Contains(got, secret) || got != "" {
		t.Errorf("the listener in the sandbox received the caller's call (secret leaked: %t): %q", strings.Contains(got, secret), got)
	}

	// Without docket's part the impostor works: a caller that connects,
	// as the removed front did, loses its secret and its output file.
	control := filepath.Join(outside(t), "control")
	f, err := os.Create(control)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sock, err := unix.Socket(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(sock)
	if err := unix.Connect(sock, &unix.SockaddrUnix{Name: filepath.Join(c.daemonDir(), "sandbox.sock")}); err != nil {
		t.Fatalf("the listener is not there: %v", err)
	}
	msg := `{"args":["sandbox","--","true"],"env":["DOCKET_E2E_API_KEY=sk-control"]}`
	if err := unix.Sendmsg(sock, []byte(msg), unix.UnixRights(int(f.Fd())), nil, 0); err != nil {
		t.Fatal(err)
	}
	reply := make([]byte, 256)
	if _, err := unix.Read(sock, reply); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(readFile(t, capture), "sk-control") || readFile(t, control) != "attacker\n" {
		t.Fatalf("the listener does not take a caller's secret and output (capture %q, output %q): the attack proves nothing",
			readFile(t, capture), readFile(t, control))
	}
}

// Hole (c): docket installed under a writable root. A sandboxed call must
// not be able to change or replace any installed binary, nor the directory
// that holds them.
func TestSandboxHoleInstallUnderAWritableRoot(t *testing.T) {
	const attack = `for f in bin/*; do printf evil > "$f" || true; done
for f in bin/*; do rm -f "$f" && printf '#!/bin/sh\necho evil\n' > "$f" && chmod +x "$f" || true; done
mv bin bin.old && mkdir bin && for f in bin.old/*; do printf '#!/bin/sh\necho evil\n' > "bin/${f##*/}"; chmod +x "bin/${f##*/}"; done
true`
	sums := func(bin string) map[string][32]byte {
		got := map[string][32]byte{}
		entries, _ := os.ReadDir(bin)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(bin, e.Name()))
			got[e.Name()] = sha256.Sum256(b)
		}
		return got
	}
	want := map[string][32]byte{}
	for name, src := range installFiles(t) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = sha256.Sum256(b)
	}
	c := newHoleCaller(t)

	// Without the sandbox the attack replaces every binary.
	plain := t.TempDir()
	install(t, plain)
	if r := c.run(t, plain, nil, "sh", "-c", attack); r.code != 0 {
		t.Fatalf("the attack without the sandbox: exit %d: %s", r.code, r.stderr)
	}
	for name, sum := range sums(filepath.Join(plain, "bin")) {
		if sum == want[name] {
			t.Fatalf("without the sandbox the attack left %s as it was: it proves nothing", name)
		}
	}

	ws := t.TempDir()
	docket := install(t, ws)
	c.warm(t, docket)
	r := c.run(t, ws, nil, docket, "sandbox", "-s", "workspace-write", "--", "sh", "-c", attack)
	if r.code != 0 {
		t.Fatalf("the attack in the sandbox: exit %d: %s", r.code, r.stderr)
	}
	got := sums(filepath.Join(ws, "bin"))
	for name, sum := range want {
		if got[name] != sum {
			t.Errorf("a sandboxed call changed or replaced the installed %s", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("a sandboxed call planted %s beside docket", name)
		}
	}
}

// capEff reads the CapEff line grep printed.
func capEff(t *testing.T, r result) uint64 {
	t.Helper()
	_, hex, ok := strings.Cut(strings.TrimSpace(r.stdout), "\t")
	v, err := strconv.ParseUint(hex, 16, 64)
	if r.code != 0 || !ok || err != nil {
		t.Fatalf("no CapEff (exit %d): %q %s", r.code, r.stdout, r.stderr)
	}
	return v
}

// Hole (d): a root caller that dropped CAP_SYS_ADMIN must not get it back
// for its command with --sandbox danger-full-access.
func TestSandboxHoleDroppedCapabilityStaysDropped(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a root caller's capabilities: the test runs as uid", os.Geteuid())
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Fatal("setpriv (util-linux) is needed to drop a capability:", err)
	}
	const sysAdmin = 1 << unix.CAP_SYS_ADMIN
	c := newHoleCaller(t)
	docket := install(t, outside(t))
	c.warm(t, docket)
	drop := []string{"setpriv", "--inh-caps=-sys_admin", "--bounding-set=-sys_admin", "--"}
	show := []string{"grep", "CapEff", "/proc/self/status"}
	ws := t.TempDir()
	// Without the drop the command has it: the check can see the bit.
	if v := capEff(t, c.run(t, ws, nil, append([]string{docket, "sandbox", "-s", "danger-full-access", "--"}, show...)...)); v&sysAdmin == 0 {
		t.Fatalf("a full root caller's command has no CAP_SYS_ADMIN (CapEff %x): the test proves nothing", v)
	}
	if v := capEff(t, c.run(t, ws, nil, append(drop, show...)...)); v&sysAdmin != 0 {
		t.Fatalf("setpriv did not drop CAP_SYS_ADMIN (CapEff %x)", v)
	}
	argv := append(append(drop, docket, "sandbox", "-s", "danger-full-access", "--"), show...)
	if v := capEff(t, c.run(t, ws, nil, argv...)); v&sysAdmin != 0 {
		t.Errorf("the command of a caller without CAP_SYS_ADMIN has it back (CapEff %x)", v)
	}
}

// Hole (e): a caller in its own empty network namespace must not reach
// the host's loopback through docket sandbox.
func TestSandboxHoleEmptyNetworkNamespaceStaysEmpty(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Fatal("unshare (util-linux) is needed for a caller in its own network namespace:", err)
	}
	c := newHoleCaller(t)
	docket := install(t, outside(t))
	c.warm(t, docket)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	argv, role := roleCmd("connect", l.Addr().String())
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"danger-full-access", []string{"-s", "danger-full-access"}},
		{"workspace-write with the network on", []string{"-s", "workspace-write", "--network"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call := append(append(append([]string{docket, "sandbox"}, tc.args...), "--"), argv...)
			// Without the namespace the command reaches the listener.
			if r := c.run(t, t.TempDir(), []string{role}, call...); r.code != 0 || r.stdout != "connected\n" {
				t.Fatalf("from the host's namespace: exit %d, %q %s; want connected: the test proves nothing", r.code, r.stdout, r.stderr)
			}
			r := c.run(t, t.TempDir(), []string{role}, append([]string{"unshare", "-n", "--"}, call...)...)
			if r.code != 0 || !strings.HasPrefix(r.stdout, "not connected") {
				t.Errorf("from an empty network namespace: exit %d, %q %s; want the command to run and not connect", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// Hole (f): the caller's own Landlock domain, pids cgroup and
// RLIMIT_FSIZE bind the command, whatever the plan allows.
func TestSandboxHoleCallerConfinementBindsTheCommand(t *testing.T) {
	c := newHoleCaller(t)
	docket := install(t, outside(t))
	c.warm(t, docket)
	caller, callerRole := roleCmd("caller")

	t.Run("Landlock domain", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("a Landlock domain without no_new_privs needs root; with it the caller was never served by the removed daemon")
		}
		dir := outside(t)
		victim := filepath.Join(dir, "victim")
		ws := t.TempDir()
		allowed := strings.Join([]string{ws, c.tmp, os.TempDir(), "/dev", "/proc", "/sys"}, ":")
		for _, args := range [][]string{
			{"-s", "danger-full-access"},
			{"-s", "workspace-write", "--writable-root", dir},
		} {
			writeFile(t, victim, "precious\n")
			call := append(append([]string{docket, "sandbox"}, args...), "--", "sh", "-c", "echo pwned > "+victim+" || echo denied")
			// Without the caller's domain the command writes the victim.
			if r := c.run(t, ws, nil, call...); r.code != 0 || readFile(t, victim) != "pwned\n" {
				t.Fatalf("%v without the caller's domain: exit %d, victim %q: the test proves nothing: %s", args, r.code, readFile(t, victim), r.stderr)
			}
			writeFile(t, victim, "precious\n")
			r := c.run(t, ws, []string{callerRole, landlockEnv + "=" + allowed}, append(caller, call...)...)
			if r.code != 0 || r.stdout != "denied\n" {
				t.Errorf("%v under the caller's domain: exit %d, %q; want the command to run and be denied: %s", args, r.code, r.stdout, r.stderr)
			}
			if got := readFile(t, victim); got != "precious\n" {
				t.Errorf("%v: a caller whose Landlock domain forbids the write had its command write it (%q)", args, got)
			}
		}
	})

	t.Run("pids cgroup", func(t *testing.T) {
		procs := pidsCgroup(t, 60)
		fork, forkRole := roleCmd("fork", "150")
		for _, mode := range []string{"danger-full-access", "workspace-write"} {
			call := append([]string{docket, "sandbox", "-s", mode, "--"}, fork...)
			if r := c.run(t, t.TempDir(), []string{forkRole}, call...); r.code != 0 || r.stdout != "150\n" {
				t.Fatalf("%s outside the cgroup: exit %d, %q started: the test proves nothing: %s", mode, r.code, r.stdout, r.stderr)
			}
			r := c.run(t, t.TempDir(), []string{forkRole, callerRole, cgroupEnv + "=" + procs}, append(caller, call...)...)
			if r.code == 97 {
				t.Fatalf("the caller could not join the cgroup: %s", r.stderr)
			}
			n, err := strconv.Atoi(strings.TrimSpace(r.stdout))
			switch {
			case r.code != 0 || err != nil:
				t.Errorf("%s in the cgroup: exit %d, %q: the command did not run to the end: %s", mode, r.code, r.stdout, r.stderr)
			case n >= 150:
				t.Errorf("%s: the command of a caller in a cgroup of at most 60 tasks started %d processes", mode, n)
			}
		}
	})

	t.Run("RLIMIT_FSIZE", func(t *testing.T) {
		if _, err := exec.LookPath("prlimit"); err != nil {
			t.Fatal("prlimit (util-linux) is needed for a caller's file-size limit:", err)
		}
		for _, mode := range []string{"danger-full-access", "workspace-write"} {
			ws := t.TempDir()
			big := filepath.Join(ws, "big")
			call := []string{docket, "sandbox", "-s", mode, "--", "sh", "-c", "head -c 1000000 /dev/zero > " + big}
			c.run(t, ws, nil, call...)
			if st, err := os.Stat(big); err != nil || st.Size() != 1000000 {
				t.Fatalf("%s without the limit: %v: the test proves nothing", mode, err)
			}
			_ = os.Remove(big)
			c.run(t, ws, nil, append([]string{"prlimit", "--fsize=65536:65536", "--"}, call...)...)
			// The shell makes the file before head writes: it is there
			// when the command ran.
			if st, err := os.Stat(big); err != nil {
				t.Errorf("%s under the limit: the command did not run: %v", mode, err)
			} else if st.Size() > 65536 {
				t.Errorf("%s: the command of a caller limited to 64 KiB files wrote %d bytes", mode, st.Size())
			}
		}
	})
}
