package sandbox

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/layers"
	"golang.org/x/sys/unix"
)

// The escape cases of process isolation (issue 12): capabilities and file
// handles (hole 1), the helper's report channel (2), its memory and threads
// (3), docket's own binaries (4), inherited descriptors (7), and IPC and
// UTS namespaces (8). The cases that fit the runner go through runCases;
// the others are tests of their own below, each running its attack
// unsandboxed first as well.

func processEscapeCases() []escapeCase {
	onlyNone := []string{vNone}
	// A thread that could not be read counts as holding capabilities: the
	// case must see every thread to prove anything.
	holdsCaps := func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode != 1 }
	return []escapeCase{
		{name: "the command holds a capability", works: onlyNone, needs: "root",
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "caps", "self") },
			effect: holdsCaps},
		{name: "a thread of PID 1 (the helper) holds a capability", works: onlyNone, needs: "root",
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "caps", "pid1") },
			effect: holdsCaps},
		{name: "Shocker: append to a file outside the roots by its handle", works: onlyNone, needs: "root",
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "shocker", filepath.Join(f.O, "target.txt"), f.W)
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return fileHas(filepath.Join(f.O, "target.txt"), "pwned")
			}},
		{name: "Shocker with a handle made outside the sandbox", works: onlyNone, needs: "root",
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "shocker", filepath.Join(f.O, "target.txt"), f.W, fileHandle(t, filepath.Join(f.O, "target.txt")))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return fileHas(filepath.Join(f.O, "target.txt"), "pwned")
			}},
		{name: "Shocker: append to .git/config by its handle", works: onlyNone, needs: "root",
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "shocker", filepath.Join(f.W, ".git", "config"), f.W, fileHandle(t, filepath.Join(f.W, ".git", "config")))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return fileHas(filepath.Join(f.W, ".git", "config"), "pwned")
			}},
		{name: "read the helper's environment", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "read-environ", strconv.Itoa(f.startVictim(t).Process.Pid))
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
		{name: "read and write the helper's memory (process_vm_readv/writev)", works: onlyNone, needs: "root",
			argv: func(t *testing.T, f *fixture) []string {
				f.mem = new([64]byte)
				addr := uintptr(unsafe.Pointer(&f.mem[0]))
				return attackArgv(t, "vm-rw", strconv.Itoa(os.Getpid()), strconv.FormatUint(uint64(addr), 10))
			},
			// Exit 3: the call reached the process, only the address was wrong.
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool {
				return out.ExitCode == 3 || atomic.LoadUint32((*uint32)(unsafe.Pointer(&f.mem[0]))) != 0
			}},
		{name: "forge a setup report through the helper's descriptors", works: onlyNone, needs: "root",
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "forge-report", strconv.Itoa(f.startDecoy(t)), f.token)
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool {
				return out.ExitCode == 0 || len(out.Fallbacks) > 0 || f.waitReceived(out)
			}},
		{name: "write a host SysV shared memory segment", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string { return attackArgv(t, "shm-write", strconv.Itoa(f.hostShm(t))) },
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return f.hostShmHas(t, "pwned")
			}},
		{name: "create a POSIX message queue on the host", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string { return attackArgv(t, "mq-create", f.mqName(t)) },
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				fd, err := mqOpen(f.mqName(t), unix.O_RDONLY)
				if err != nil {
					return false
				}
				unix.Close(fd)
				return true
			}},
	}
}

func TestEscapeSuiteProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	runProcessSuite(t, "", nil)
}

// TestEscapeSuiteProcessLeanHelper runs the cases through the CGO-free
// helper, whose init stage is a second exec of that binary.
func TestEscapeSuiteProcessLeanHelper(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary and runs real sandboxed processes")
	}
	runProcessSuite(t, buildLeanHelper(t), nil)
}

// TestEscapeSuiteProcessUserNamespace runs the cases through the user
// namespace setup that unprivileged users get.
func TestEscapeSuiteProcessUserNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	runProcessSuite(t, "", func(c *Capabilities) {
		if !c.UserNamespaces {
			t.Skip("no user namespaces on this machine")
		}
		c.Root = false
	})
}

func runProcessSuite(t *testing.T, helper string, adjust func(*Capabilities)) {
	runProcessSuiteWith(t, helper, adjust, Run)
}

// runProcessSuiteWith is runProcessSuite with the function that runs each attack.
func runProcessSuiteWith(t *testing.T, helper string, adjust func(*Capabilities), run func(context.Context, Request) (events.ExecOutcome, error)) {
	caps := Probe()
	if caps.LandlockABI < 1 || !caps.Seccomp {
		t.Fatalf("the escape suite needs Landlock and seccomp: %+v", caps)
	}
	needsCaps := caps
	if adjust != nil {
		adjust(&caps)
	}
	var cases []escapeCase
	for _, c := range processEscapeCases() {
		if reason := missingNeed(c.needs, needsCaps); reason != "" {
			t.Run(c.name, func(t *testing.T) { t.Skip(reason) })
			continue
		}
		c.needs = ""
		cases = append(cases, c)
	}
	runCases(t, cases, helper, caps, needsCaps, run)
}

// fileHandle is the handle of path as "TYPE:HEX", made outside the sandbox.
func fileHandle(t *testing.T, path string) string {
	h, _, err := unix.NameToHandleAt(unix.AT_FDCWD, path, 0)
	if err != nil {
		t.Fatalf("name_to_handle_at %s: %v", path, err)
	}
	return fmt.Sprintf("%d:%s", h.Type(), hex.EncodeToString(h.Bytes()))
}

// startDecoy starts a process that holds the write end of a pipe at fd 3,
// as the helper held its report pipe, and counts the forged setup lines
// that arrive on the read end; it returns the decoy's pid.
func (f *fixture) startDecoy(t *testing.T) int {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testBinary(t), attackArg, "sleeper", strings.Replace(f.token, "escape", "decoy", 1))
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if sc.Text()+"\n" == forgedSetupLine {
				f.received.Add(1)
			}
		}
		close(done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		<-done
		r.Close()
	})
	return cmd.Process.Pid
}

// shmKey is a SysV IPC key of this fixture's own.
func (f *fixture) shmKey() int {
	h := fnv.New32a()
	h.Write([]byte(f.token))
	return int(h.Sum32() & 0x7fffffff)
}

// hostShm creates a host shared memory segment for the fixture.
func (f *fixture) hostShm(t *testing.T) int {
	key := f.shmKey()
	id, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
	if err != nil {
		t.Fatalf("shmget: %v", err)
	}
	t.Cleanup(func() { unix.SysvShmCtl(id, unix.IPC_RMID, nil) })
	return key
}

func (f *fixture) hostShmHas(t *testing.T, s string) bool {
	id, err := unix.SysvShmGet(f.shmKey(), 0, 0)
	if err != nil {
		t.Fatalf("shmget: %v", err)
	}
	mem, err := unix.SysvShmAttach(id, 0, unix.SHM_RDONLY)
	if err != nil {
		t.Fatalf("shmat: %v", err)
	}
	defer unix.SysvShmDetach(mem)
	return strings.Contains(string(mem[:64]), s)
}

// mqName is a POSIX message queue name of the fixture's own, removed at
// the end of the test.
func (f *fixture) mqName(t *testing.T) string {
	name := "/" + f.token
	t.Cleanup(func() { mqUnlink(name) })
	return name
}

// TestHelperThreadsHoldNoCapabilities reads, from inside, the capability
// sets of the command and of every thread of PID 1 (the helper's init
// stage), for the default, lean and user-namespace helpers.
func TestHelperThreadsHoldNoCapabilities(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	caps := Probe()
	if !caps.Root {
		t.Skip("an unprivileged docket has no capabilities to drop")
	}
	userns := caps
	userns.Root = false
	// Root's helper starts with a narrow bounding set and drops it on
	// every thread itself; in a user namespace it re-executes as init.
	type setup struct {
		name    string
		helper  string
		caps    Capabilities
		reexecd bool
	}
	setups := []setup{
		{"test binary as helper", "", caps, false},
		{"lean helper", buildLeanHelper(t), caps, false},
	}
	if caps.UserNamespaces {
		setups = append(setups, setup{"user namespace", "", userns, true},
			setup{"lean helper in a user namespace", setups[1].helper, userns, true})
	}
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			f := newFixture(t)
			for _, v := range []string{vRO, vWW} {
				for _, who := range []string{"self", "pid1"} {
					c := s.caps
					out, err := Run(context.Background(), Request{Argv: attackArgv(t, "caps", who), Cwd: f.W,
						Plan: f.plan(v), Caps: &c, HelperPath: s.helper, Timeout: time.Minute})
					if err != nil {
						t.Fatalf("%s %s: %v", v, who, err)
					}
					if out.ExitCode != 1 || !strings.Contains(out.Stderr, "no capability in any set") {
						t.Errorf("%s %s: capabilities held or unreadable: exit %d\n%s%s", v, who, out.ExitCode, out.Stdout, out.Stderr)
					}
					if who == "pid1" {
						if !strings.Contains(out.Stdout, "helper is pid 1: true") {
							t.Errorf("%s: PID 1 is not the helper:\n%s", v, out.Stdout)
						}
						if want := fmt.Sprintf("re-executed init: %v", s.reexecd); !strings.Contains(out.Stdout, want) {
							t.Errorf("%s: want %q:\n%s", v, want, out.Stdout)
						}
						// A Go runtime always has several threads; one
						// would mean /proc/1/task was not fully listed.
						if n := threadsLine(out.Stdout); n < 2 {
							t.Errorf("%s: read %d threads of PID 1, want the helper's several:\n%s", v, n, out.Stdout)
						}
					}
					if !slices.Contains(out.Layers, layers.Caps) {
						t.Errorf("%s: layers %v lack %q", v, out.Layers, layers.Caps)
					}
				}
			}
		})
	}
}

func threadsLine(s string) int {
	for _, line := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(line, "threads "); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// TestForgedSetupReportCannotCauseARetry is the attack of issue 12, hole
// 2: the command takes the helper's report pipe (pidfd_getfd, or
// /proc/1/fd) and writes "mount namespace failed", which used to make
// docket run it again with fewer namespaces. It must get nothing, run
// exactly once, and docket must report the layers it really enforced.
func TestForgedSetupReportCannotCauseARetry(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	caps := Probe()
	if !caps.Root {
		t.Skip("pidfd_getfd on the decoy needs root (Yama and ptrace rules) to prove the attack")
	}
	// Unsandboxed, against a decoy that holds a pipe as the helper did:
	// the technique works.
	f := newFixture(t)
	out, err := Run(context.Background(), Request{Argv: attackArgv(t, "forge-report", strconv.Itoa(f.startDecoy(t)), f.token),
		Cwd: f.W, Plan: f.plan(vNone), Timeout: time.Minute})
	if err != nil || out.ExitCode != 0 || !f.waitReceived(out) {
		t.Fatalf("the forgery does not work even unsandboxed, so this test proves nothing: err=%v exit=%d\n%s", err, out.ExitCode, out.Output)
	}
	for _, helper := range []struct{ name, path string }{{"test binary", ""}, {"lean helper", buildLeanHelper(t)}} {
		for _, v := range variantNames[1:] {
			t.Run(helper.name+"/"+v, func(t *testing.T) {
				f := newFixture(t)
				var runs atomic.Int32
				c := caps
				out, err := Run(context.Background(), Request{Argv: attackArgv(t, "forge-report", "1", f.token),
					Cwd: f.W, Plan: f.plan(v), Caps: &c, HelperPath: helper.path, Timeout: time.Minute,
					OnOutput: func(stream string, chunk []byte) {
						runs.Add(int32(strings.Count(string(chunk), "RUN "+f.token)))
					}})
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if n := runs.Load(); n != 1 {
					t.Errorf("the command ran %d times, want exactly once", n)
				}
				if out.ExitCode != 1 {
					t.Errorf("the forgery reached a pipe: exit %d\n%s", out.ExitCode, out.Output)
				}
				if len(out.Fallbacks) != 0 {
					t.Errorf("fallbacks %v after a forged report", out.Fallbacks)
				}
				for _, l := range []string{layers.MountNS, layers.PIDNS, layers.Caps, layers.IPCNS} {
					if !slices.Contains(out.Layers, l) {
						t.Errorf("layers %v lack %q", out.Layers, l)
					}
				}
				// Refused by the kernel, not for want of a target.
				if !strings.Contains(out.Stderr, "pidfd_getfd") && !strings.Contains(out.Stderr, "pidfd_open") {
					t.Errorf("the attack did not try pidfd_getfd: %s", out.Stderr)
				}
			})
		}
	}
}

// TestInheritedDescriptorsDoNotReachTheCommand leaks a file and a
// connected TCP socket into the test process without close-on-exec, as a
// careless parent of docket would, and checks that a plain exec passes
// them on (the attack works) while docket's runs, unsandboxed included,
// do not.
func TestInheritedDescriptorsDoNotReachTheCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	f := newFixture(t)
	file := filepath.Join(f.O, "leaked.txt")
	lf, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	conn, err := net.Dial("tcp4", f.listenTCP(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sc, err := conn.(*net.TCPConn).File()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	leaks := map[string]*os.File{"file": lf, "socket": sc}
	effect := map[string]func(events.ExecOutcome) bool{
		"file":   func(events.ExecOutcome) bool { return fileHas(file, "pwned") },
		"socket": func(out events.ExecOutcome) bool { return f.waitReceived(out) },
	}
	for _, what := range []string{"file", "socket"} {
		t.Run(what, func(t *testing.T) {
			// A high number, as inherited descriptors usually are.
			fd := 100
			if what == "socket" {
				fd = 101
			}
			leak := func() {
				if err := unix.Dup3(int(leaks[what].Fd()), fd, 0); err != nil {
					t.Fatal(err)
				}
			}
			t.Cleanup(func() { unix.Close(fd) })
			leak()
			cmd := exec.Command(testBinary(t), attackArg, "write-fd", strconv.Itoa(fd))
			if b, err := cmd.CombinedOutput(); err != nil || !effect[what](events.ExecOutcome{}) {
				t.Fatalf("a plain exec does not pass the leaked %s, so this test proves nothing: %v %s", what, err, b)
			}
			if err := os.Truncate(file, 0); err != nil {
				t.Fatal(err)
			}
			f.received.Store(0)
			for _, v := range variantNames {
				leak() // docket marked it close-on-exec last time
				out, err := Run(context.Background(), Request{Argv: attackArgv(t, "write-fd", strconv.Itoa(fd)),
					Cwd: f.W, Plan: f.plan(v), Timeout: time.Minute})
				if err != nil {
					t.Fatalf("%s: Run: %v", v, err)
				}
				if out.ExitCode == 0 || effect[what](out) {
					t.Errorf("%s: the command used the inherited %s: exit %d %s", v, what, out.ExitCode, out.Output)
				}
				if !strings.Contains(out.Stderr, "bad file descriptor") {
					t.Errorf("%s: want EBADF, got %s", v, out.Stderr)
				}
			}
		})
	}
}

// TestHelperBinaryCannotBeReplacedFromInside puts the helper under a
// writable root (a checkout of docket, or a binary in /tmp) and lets the
// command rename a script over it, or rename its directory away and plant
// one. Unsandboxed that works and the next call runs the script
// unconfined; sandboxed it must fail, and the next call must run the real
// helper with every layer.
func TestHelperBinaryCannotBeReplacedFromInside(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	caps := Probe()
	if !caps.Namespaces() {
		t.Skip("protecting the binaries needs a mount namespace")
	}
	marker := func(f *fixture) string { return filepath.Join(f.O, "unconfined") }
	setup := func(t *testing.T) (*fixture, string) {
		f := newFixture(t)
		helper := filepath.Join(f.W, "bin", HelperName)
		if err := os.MkdirAll(filepath.Dir(helper), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := copyFile(testBinary(t), helper); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(helper, 0o755); err != nil {
			t.Fatal(err)
		}
		return f, helper
	}
	// Unsandboxed: the replacement works, and a sandboxed call that then
	// starts "the helper" runs the script, outside any sandbox.
	f, helper := setup(t)
	out, err := Run(context.Background(), Request{Argv: attackArgv(t, "replace-helper", helper, marker(f)), Cwd: f.W, Plan: f.plan(vNone)})
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("replacing the helper does not work even unsandboxed: %v %s", err, out.Output)
	}
	_, _ = Run(context.Background(), Request{Argv: []string{"true"}, Cwd: f.W, Plan: f.plan(vWW), HelperPath: helper})
	if !exists(marker(f)) {
		t.Fatal("the replaced helper did not run the script, so this test proves nothing")
	}
	for _, v := range []string{vWW, vWWNet} {
		t.Run(v, func(t *testing.T) {
			f, helper := setup(t)
			before, err := os.ReadFile(helper)
			if err != nil {
				t.Fatal(err)
			}
			c := caps
			out, err := Run(context.Background(), Request{Argv: attackArgv(t, "replace-helper", helper, marker(f)),
				Cwd: f.W, Plan: f.plan(v), HelperPath: helper, Caps: &c, Timeout: time.Minute})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if out.ExitCode == 0 {
				t.Errorf("the command replaced the helper: %s", out.Output)
			}
			after, err := os.ReadFile(helper)
			if err != nil || string(after) != string(before) {
				t.Errorf("the helper binary changed on disk (%v)", err)
			}
			// A fresh Capabilities: no descriptor kept from the first call.
			fresh := Probe()
			out, err = Run(context.Background(), Request{Argv: []string{"true"}, Cwd: f.W, Plan: f.plan(v), HelperPath: helper, Caps: &fresh, Timeout: time.Minute})
			if err != nil || out.ExitCode != 0 || exists(marker(f)) {
				t.Errorf("next call: err=%v exit=%d marker=%v output=%s", err, out.ExitCode, exists(marker(f)), out.Output)
			}
			if !slices.Contains(out.Layers, layers.MountNS) || !slices.Contains(out.Layers, layers.Caps) {
				t.Errorf("next call's layers %v", out.Layers)
			}
		})
	}
}

// TestHelperBinaryIsExecutedFromItsDescriptor swaps the helper's path on
// the host between two calls that share a Capabilities: the second call
// must run the file the first one opened, not what the path now names.
func TestHelperBinaryIsExecutedFromItsDescriptor(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	dir := t.TempDir()
	helper := filepath.Join(dir, HelperName)
	if err := copyFile(testBinary(t), helper); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(helper, 0o755); err != nil {
		t.Fatal(err)
	}
	caps := Probe()
	f := newFixture(t)
	run := func() (events.ExecOutcome, error) {
		return Run(context.Background(), Request{Argv: []string{"true"}, Cwd: f.W, Plan: f.plan(vRO), HelperPath: helper, Caps: &caps, Timeout: time.Minute})
	}
	if out, err := run(); err != nil || out.ExitCode != 0 {
		t.Fatalf("first call: %v %+v", err, out)
	}
	marker := filepath.Join(f.O, "swapped")
	evil := filepath.Join(dir, "evil")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(evil, helper); err != nil {
		t.Fatal(err)
	}
	out, err := run()
	if err != nil || out.ExitCode != 0 || exists(marker) || len(out.Layers) == 0 {
		t.Fatalf("second call ran what the path names now: err=%v exit=%d swapped=%v layers=%v", err, out.ExitCode, exists(marker), out.Layers)
	}
	// Without the shared Capabilities the path is opened again: the swap
	// is then seen (and fails closed, since a script reports no layers).
	_, err = Run(context.Background(), Request{Argv: []string{"true"}, Cwd: f.W, Plan: f.plan(vRO), HelperPath: helper, Timeout: time.Minute})
	if err == nil {
		t.Fatal("a helper that reports no layers was accepted")
	}
}

// TestDocketBinariesUnderWritableRoots: which of docket's binaries the
// helper must protect, and which missing lean helper path must be held so
// that no command can plant one for the next docket to pick.
func TestDocketBinariesUnderWritableRoots(t *testing.T) {
	w := t.TempDir()
	bin := filepath.Join(w, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	docket := filepath.Join(bin, "docket")
	lean := filepath.Join(bin, HelperName)
	outside := testBinary(t)
	if err := os.WriteFile(docket, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name           string
		helper, exe    string
		leanExists     bool
		writable       []string
		present, added []string
	}{
		{"nothing under a root", outside, outside, false, []string{filepath.Join(w, "other")}, nil, nil},
		{"docket in the workspace, no lean helper", docket, docket, false, []string{w}, []string{docket}, []string{lean}},
		{"docket and the lean helper in the workspace", lean, docket, true, []string{w}, []string{lean, docket}, nil},
		{"only the helper in the workspace", docket, outside, false, []string{w}, []string{docket}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(lean)
			if tt.leanExists {
				if err := os.WriteFile(lean, []byte("x"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			present, absent := docketBinaries(tt.helper, tt.exe, tt.writable)
			if !slices.Equal(present, tt.present) || !slices.Equal(absent, tt.added) {
				t.Errorf("got %v and %v, want %v and %v", present, absent, tt.present, tt.added)
			}
		})
	}
}
