package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/confine"
	"github.com/docket-engine/docket/sandbox/internal/initc"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
)

// viaServers returns a run function that sends every call through one
// Servers, closed when the test ends.
func viaServers(t testing.TB) (*Servers, func(context.Context, Request) (events.ExecOutcome, error)) {
	t.Helper()
	s := &Servers{Binary: testBinary(t)}
	t.Cleanup(func() { _ = s.Close() })
	return s, func(ctx context.Context, req Request) (events.ExecOutcome, error) {
		req.Launcher = s
		return Run(ctx, req)
	}
}

// runWW runs argv in the fixture's workspace under its workspace-write plan.
func runWW(run func(context.Context, Request) (events.ExecOutcome, error), f *fixture, argv ...string) (events.ExecOutcome, error) {
	return run(context.Background(), Request{Argv: argv, Cwd: f.W, Plan: f.plan(vWW), Timeout: time.Minute})
}

// mustRunWW is runWW failing the test on an error.
func mustRunWW(t *testing.T, run func(context.Context, Request) (events.ExecOutcome, error), f *fixture, argv ...string) events.ExecOutcome {
	t.Helper()
	out, err := runWW(run, f, argv...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// serverPIDs lists the pids of the servers s keeps.
func serverPIDs(s *Servers) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var pids []int
	for _, sv := range s.byKey {
		pids = append(pids, sv.proc.Pid)
	}
	return pids
}

// serversRunning counts the servers s keeps.
func serversRunning(s *Servers) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byKey)
}

func TestServerRunsCommandsInNamespacesOfTheirOwn(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	s, run := viaServers(t)
	pidNS, _ := os.Readlink("/proc/self/ns/pid")
	ipcNS, _ := os.Readlink("/proc/self/ns/ipc")
	for i := 0; i < 3; i++ {
		out, err := run(context.Background(), Request{Argv: []string{"sh", "-c", "echo $$; readlink /proc/self/ns/pid /proc/self/ns/ipc; ls /proc | grep -c '^[0-9]'"},
			Cwd: f.W, Plan: f.plan(vWW), Timeout: time.Minute})
		if err != nil || out.ExitCode != 0 {
			t.Fatalf("run %d: %v %+v", i, err, out)
		}
		lines := strings.Fields(out.Stdout)
		if len(lines) != 4 {
			t.Fatalf("run %d: output %q", i, out.Stdout)
		}
		// The shell is the init's first child: pid 2 in a namespace of its own,
		// which holds the init, the shell and ls's pipeline only.
		if lines[0] != "2" {
			t.Errorf("run %d: the shell is pid %s, want 2", i, lines[0])
		}
		// The kernel reuses a freed namespace's number, so freshness is
		// shown by what the command sees (TestServerKeepsNothingOfOneCommandForTheNext);
		// here, that it is not this process's.
		if lines[1] == pidNS || lines[2] == ipcNS {
			t.Errorf("run %d: the command shares this process's PID or IPC namespace (%s %s)", i, lines[1], lines[2])
		}
		for _, want := range []string{layers.PIDNS, layers.MountNS, layers.NetNS, layers.Seccomp, layers.Caps} {
			if !slices.Contains(out.Layers, want) {
				t.Errorf("run %d: layers %v lack %s", i, out.Layers, want)
			}
		}
	}
	if n := serversRunning(s); n != 1 {
		t.Errorf("%d servers for one plan, want 1", n)
	}
}

// requireServer skips where the server path is not taken: it needs root
// and this cgo test binary.
func requireServer(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	c := Probe()
	if !c.Root || c.LandlockABI < 1 || !c.Seccomp {
		t.Skip("the sandbox server runs for root with Landlock and seccomp")
	}
	if !initc.CanSpawn {
		t.Skip("built without cgo")
	}
}

// The escape suites, unchanged, through the session's sandbox server: one
// Servers for the whole suite, so that servers are reused across cases
// where the plan is the same and started anew where it is not.
func TestEscapeSuiteServer(t *testing.T) {
	requireServer(t)
	_, run := viaServers(t)
	runEscapeSuiteWith(t, "", nil, run)
}

func TestEscapeSuiteProcessServer(t *testing.T) {
	requireServer(t)
	_, run := viaServers(t)
	runProcessSuiteWith(t, "", nil, run)
}

func TestEscapeSuiteFSServer(t *testing.T) {
	requireServer(t)
	_, run := viaServers(t)
	runFSSuite(t, run)
}

func TestServerPerPlanAndNoneForUnsandboxedRetries(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	s, run := viaServers(t)
	layersOf := func(plan events.SandboxPlan) []string {
		t.Helper()
		out, err := run(context.Background(), Request{Argv: []string{"true"}, Cwd: f.W, Plan: plan, Timeout: time.Minute})
		if err != nil || out.ExitCode != 0 {
			t.Fatalf("%s: %v %+v", plan.Mode, err, out)
		}
		return out.Layers
	}
	if l := layersOf(f.plan(vWW)); !slices.Contains(l, layers.NetNS) {
		t.Errorf("workspace-write without network: layers %v lack %s", l, layers.NetNS)
	}
	// An approved retry with the network on is another plan: another
	// server, whose commands keep the host's network.
	if l := layersOf(f.plan(vWWNet)); slices.Contains(l, layers.NetNS) || !slices.Contains(l, layers.PIDNS) {
		t.Errorf("workspace-write with network: layers %v", l)
	}
	if n := serversRunning(s); n != 2 {
		t.Errorf("%d servers for two plans, want 2", n)
	}
	// An unsandboxed retry never goes near a server.
	// Its only layers, if any, are how its process tree is killed, and
	// what kills it with docket.
	for _, l := range layersOf(f.plan(vNone)) {
		if !strings.HasPrefix(l, "tree-kill:") && !strings.HasPrefix(l, "dies-with-docket:") {
			t.Errorf("unsandboxed retry reports the sandbox layer %q", l)
		}
	}
	if n := serversRunning(s); n != 2 {
		t.Errorf("%d servers after an unsandboxed run, want 2", n)
	}
}

func TestServerKilledBetweenCallsIsReplaced(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	s, run := viaServers(t)
	escape := filepath.Join(f.O, "escaped")
	script := "echo ran; echo x > " + escape + " 2>/dev/null; exit 0"
	for i := 0; i < 2; i++ {
		out, err := run(context.Background(), Request{Argv: []string{"sh", "-c", script}, Cwd: f.W, Plan: f.plan(vWW), Timeout: time.Minute})
		if err != nil || !strings.Contains(out.Stdout, "ran") || !slices.Contains(out.Layers, layers.Seccomp) {
			t.Fatalf("run %d: %v %+v", i, err, out)
		}
		if _, err := os.Stat(escape); err == nil {
			t.Fatalf("run %d wrote outside its roots", i)
		}
		pids := serverPIDs(s)
		if len(pids) != 1 {
			t.Fatalf("run %d: %d servers", i, len(pids))
		}
		if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
}

func TestServerKilledWhileTheCommandRunsLeavesItConfined(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	s, run := viaServers(t)
	escape := filepath.Join(f.O, "escaped")
	started := filepath.Join(f.W, "started")
	script := "touch " + started + "; while [ ! -e " + filepath.Join(f.W, "go") + " ]; do sleep 0.02; done; echo x > " + escape + "; echo done"
	type result struct {
		out events.ExecOutcome
		err error
	}
	res := make(chan result, 1)
	go func() {
		out, err := run(context.Background(), Request{Argv: []string{"sh", "-c", script}, Cwd: f.W, Plan: f.plan(vWW), Timeout: time.Minute})
		res <- result{out, err}
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if i > 2000 {
			t.Fatal("the command never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	killed := serverPIDs(s)
	for _, pid := range killed {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	// The command goes on only once its server is gone: a fixed pause
	// let a loaded machine write "go" while the server still ran, and the
	// test then proved nothing about a command without its server.
	for _, pid := range killed {
		if !waitUntil(30*time.Second, func() bool { return !alive(pid) }) {
			t.Fatalf("the server (pid %d) still runs after SIGKILL", pid)
		}
	}
	if err := os.WriteFile(filepath.Join(f.W, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := <-res
	if _, err := os.Stat(escape); err == nil {
		t.Fatalf("the command wrote outside its roots once its server was gone: %+v", r.out)
	}
	// The init outlives its server and still reports how the command ended.
	if r.err != nil || !strings.Contains(r.out.Stdout, "done") || !slices.Contains(r.out.Layers, layers.Seccomp) {
		t.Errorf("outcome after the server died: %v %+v", r.err, r.out)
	}
}

func TestServerTimeoutEndsTheCommand(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	_, run := viaServers(t)
	start := time.Now()
	// The time-out leaves a loaded machine time to start the shell and run
	// its trap: a SIGTERM before the trap would end the shell with SIGTERM.
	out, err := run(context.Background(), Request{Argv: []string{"sh", "-c", "trap '' TERM; sleep 30"}, Cwd: f.W, Plan: f.plan(vWW),
		Timeout: 2 * time.Second, KillGrace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !out.TimedOut || out.Signal != "SIGKILL" {
		t.Errorf("want a timed-out command killed with SIGKILL, got %+v", out)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the timeout took %v", d)
	}
}

func TestServerRunsParallelCommandsApart(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	s, run := viaServers(t)
	const n = 4
	outs := make([]events.ExecOutcome, n)
	errs := make([]error, n)
	done := make(chan int, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			outs[i], errs[i] = run(context.Background(), Request{Argv: []string{"sh", "-c", "readlink /proc/self/ns/pid; sleep 0.2; ls /proc | grep -c '^[0-9]'"},
				Cwd: f.W, Plan: f.plan(vWW), Timeout: time.Minute})
			done <- i
		}(i)
	}
	for i := 0; i < n; i++ {
		<-done
	}
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		if errs[i] != nil || outs[i].ExitCode != 0 {
			t.Fatalf("command %d: %v %+v", i, errs[i], outs[i])
		}
		fields := strings.Fields(outs[i].Stdout)
		if len(fields) != 2 {
			t.Fatalf("command %d: output %q", i, outs[i].Stdout)
		}
		if seen[fields[0]] {
			t.Errorf("command %d shares PID namespace %s with another", i, fields[0])
		}
		seen[fields[0]] = true
		// Its init, the shell, ls and grep: none of the other commands.
		if c, _ := strconv.Atoi(fields[1]); c > 4 {
			t.Errorf("command %d sees %d processes in its /proc", i, c)
		}
	}
	if c := serversRunning(s); c != 1 {
		t.Errorf("%d servers, want 1", c)
	}
}

func TestServerKeepsNothingOfOneCommandForTheNext(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	_, run := viaServers(t)
	// A SysV message queue and a shared memory segment made by one command
	// would be there for the next one in a shared IPC namespace; a daemon
	// would be there in a shared PID namespace.
	first := "ipcmk -Q >/dev/null && ipcmk -M 4096 >/dev/null && (sleep 30 &) && ipcs -q -m | grep -c '^0x'"
	out, err := run(context.Background(), Request{Argv: []string{"sh", "-c", first}, Cwd: f.W, Plan: f.plan(vWW), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out.Stdout) != "2" {
		t.Skipf("ipcmk/ipcs did not make two objects here (%q, %q): the test cannot tell", out.Stdout, out.Stderr)
	}
	out, err = run(context.Background(), Request{Argv: []string{"sh", "-c", "ipcs -q -m | grep -c '^0x'; pgrep -c sleep"}, Cwd: f.W, Plan: f.plan(vWW), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(out.Stdout); len(got) < 2 || got[0] != "0" || got[1] != "0" {
		t.Errorf("the next command sees the first one's IPC objects or processes: %q", out.Stdout)
	}
}

// TestInitWaitsForTheGo starts an init the way the server does and never
// gives it the go: the command must never run.
func TestInitWaitsForTheGo(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	marker := filepath.Join(f.W, "ran")
	for _, give := range []bool{true, false} {
		status, st, err := spawnTestInit(t, f, []string{"/bin/sh", "-c", "echo > " + marker}, give)
		if err != nil {
			t.Fatal(err)
		}
		if st.Step != 0 {
			t.Fatalf("setup failed at step %d (errno %d)", st.Step, st.Err)
		}
		_, serr := os.Stat(marker)
		ws := unix.WaitStatus(status)
		switch {
		case give && (serr != nil || ws.ExitStatus() != 0):
			t.Errorf("given the go: marker %v, init status %v", serr, ws)
		case !give && (serr == nil || ws.ExitStatus() != proto.ExitSetup):
			t.Errorf("without the go: marker %v, init status %v (want exit %d)", serr, ws, proto.ExitSetup)
		}
		_ = os.Remove(marker)
	}
}

// spawnTestInit clones an init from a throw-away thread of this process in
// a private mount namespace, reads its status, gives (or not) the go, and
// returns its wait status.
func spawnTestInit(t *testing.T, f *fixture, argv []string, give bool) (int, initc.Status, error) {
	type result struct {
		status int
		st     initc.Status
		err    error
	}
	res := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		var r result
		defer func() { res <- r }()
		// The thread goes back to this process's mount namespace at the
		// end. Left in the private one, it would die with the goroutine,
		// unless it is the main thread, which the runtime keeps: /proc/self
		// names the main thread, so every later look at the process's mount
		// table (the server pool's, the kept walk's) would watch the wrong one.
		own, err := unix.Open("/proc/thread-self/ns/mnt", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			r.err = err
			return
		}
		defer func() {
			if unix.Setns(own, unix.CLONE_NEWNS) == nil {
				runtime.UnlockOSThread()
			}
			_ = unix.Close(own)
		}()
		if r.err = unix.Unshare(unix.CLONE_NEWNS); r.err != nil {
			return
		}
		if r.err = unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); r.err != nil {
			return
		}
		spec := Spec{Writable: []string{f.W}}
		ruleset, _, err := confine.LandlockRuleset(spec)
		if err != nil {
			r.err = err
			return
		}
		defer unix.Close(ruleset)
		filter, err := buildSeccompFilter(false)
		if err != nil {
			r.err = err
			return
		}
		devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
		defer devnull.Close()
		exitR, exitW, _ := os.Pipe()
		defer exitR.Close()
		ctl, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			r.err = err
			return
		}
		last, _ := os.ReadFile("/proc/sys/kernel/cap_last_cap")
		lastCap, _ := strconv.Atoi(strings.TrimSpace(string(last)))
		d := int(devnull.Fd())
		pid, pidfd, err := initc.Spawn(initc.Args{FDs: []int{d, d, d, d, ctl[1], ruleset}, Filter: filter, LastCap: lastCap,
			Securebits: confine.LockedSecurebits, CloneFlags: unix.CLONE_NEWPID | unix.CLONE_NEWIPC})
		unix.Close(ctl[1])
		if err != nil {
			r.err = err
			unix.Close(ctl[0])
			return
		}
		defer unix.Close(pidfd)
		if r.st, r.err = initc.ReadStatus(ctl[0]); r.err != nil || r.st.Step != 0 {
			unix.Close(ctl[0])
			r.status = initc.Reap(pid)
			return
		}
		msg, err := initc.Encode(initc.Command{Path: argv[0], Cwd: f.W, Argv: argv, Env: []string{"PATH=/usr/bin:/bin"}, Lifeline: true})
		if err != nil {
			r.err = err
			return
		}
		r.err = initc.SendCommand(ctl[0], msg, []int{d, d, d, int(exitW.Fd())})
		exitW.Close()
		if r.err == nil {
			r.st, r.err = initc.ReadStatus(ctl[0])
		}
		if give {
			_, _ = unix.Write(ctl[0], []byte{'g'})
		}
		unix.Close(ctl[0])
		r.status = initc.Reap(pid)
	}()
	r := <-res
	return r.status, r.st, r.err
}

func TestServerGivesEachCommandItsOwnPtys(t *testing.T) {
	requireServer(t)
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1) to open a pty with")
	}
	f := newFixture(t)
	_, run := viaServers(t)
	held := make(chan events.ExecOutcome, 1)
	go func() {
		// Holds a pty for a while: script(1) opens one and runs the shell on it.
		out, _ := run(context.Background(), Request{Argv: []string{"script", "-qec", "touch " + filepath.Join(f.W, "pty-open") + "; sleep 1", "/dev/null"},
			Cwd: f.W, Plan: f.plan(vWW), Timeout: time.Minute})
		held <- out
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(f.W, "pty-open")); err == nil {
			break
		}
		if i > 2000 {
			t.Fatal("the pty holder never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	out, err := run(context.Background(), Request{Argv: []string{"ls", "/dev/pts"}, Cwd: f.W, Plan: f.plan(vWW), Timeout: time.Minute})
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("%v %+v", err, out)
	}
	if got := strings.Fields(out.Stdout); len(got) != 1 || got[0] != "ptmx" {
		t.Errorf("a command sees the ptys of the command beside it: /dev/pts holds %q", got)
	}
	if h := <-held; h.ExitCode != 0 || !slices.Contains(h.Layers, layers.Devpts) {
		t.Errorf("the pty holder: %+v", h)
	}
}

func TestServerForAWorkspaceMadeAgain(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	s, run := viaServers(t)
	write := func() events.ExecOutcome {
		return mustRunWW(t, run, f, "sh", "-c", "echo new > file.txt && cat file.txt")
	}
	if out := write(); out.ExitCode != 0 {
		t.Fatalf("first write: %+v", out)
	}
	// The workspace goes and comes back (a branch switch by a tool that
	// recreates the directory): the server's layout holds the old one.
	if err := os.RemoveAll(f.W); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(f.W, 0o755); err != nil {
		t.Fatal(err)
	}
	out := write()
	if out.ExitCode != 0 || strings.TrimSpace(out.Stdout) != "new" {
		t.Fatalf("write into the new workspace: %+v", out)
	}
	if b, err := os.ReadFile(filepath.Join(f.W, "file.txt")); err != nil || strings.TrimSpace(string(b)) != "new" {
		t.Errorf("the write did not land in the new workspace: %q %v", b, err)
	}
	if n := serversRunning(s); n != 2 {
		t.Errorf("%d servers, want 2 (one per workspace directory)", n)
	}
}

func TestServerReplacesAReadyInitThatDied(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	s, run := viaServers(t)
	call := func() events.ExecOutcome { return mustRunWW(t, run, f, "sh", "-c", "echo ok") }
	if out := call(); out.ExitCode != 0 {
		t.Fatalf("%+v", out)
	}
	// Kill the server's waiting init (its only child process; each
	// thread's children file lists those that thread cloned).
	pids := serverPIDs(s)
	if len(pids) != 1 {
		t.Fatalf("%d servers", len(pids))
	}
	killed := 0
	for i := 0; i < 200 && killed == 0; i++ {
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pids[0]))
		for _, task := range tasks {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pids[0], task.Name()))
			for _, c := range strings.Fields(string(b)) {
				if n, _ := strconv.Atoi(c); n > 0 && syscall.Kill(n, syscall.SIGKILL) == nil {
					killed++
				}
			}
		}
		if killed == 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if killed == 0 {
		t.Fatal("found no ready init to kill")
	}
	time.Sleep(20 * time.Millisecond)
	if out := call(); out.ExitCode != 0 || strings.TrimSpace(out.Stdout) != "ok" {
		t.Errorf("after the ready init died: %+v", out)
	}
}

// The escape suites through servers made without root: the server's
// namespaces come from a user namespace, as an unprivileged user's would.
func TestEscapeSuiteServerUserNamespace(t *testing.T) {
	requireServer(t)
	_, run := viaServers(t)
	runEscapeSuiteWith(t, "", unprivileged(t), run)
}

func TestEscapeSuiteProcessServerUserNamespace(t *testing.T) {
	requireServer(t)
	if raceEnabled {
		t.Skip("same server code as TestEscapeSuiteServerUserNamespace; skipped to keep -race runs short")
	}
	_, run := viaServers(t)
	runProcessSuiteWith(t, "", unprivileged(t), run)
}

// unprivileged makes Run take the user-namespace setup (root otherwise
// skips it).
func unprivileged(t *testing.T) func(*Capabilities) {
	return func(c *Capabilities) {
		if !c.UserNamespaces {
			t.Skip("no user namespaces on this machine")
		}
		c.Root = false
	}
}

func TestServerWithoutRootUsesAUserNamespace(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	s, run := viaServers(t)
	caps := Probe()
	unprivileged(t)(&caps)
	out, err := run(context.Background(), Request{Argv: []string{"sh", "-c", "echo $$; cat /proc/self/uid_map"}, Cwd: f.W, Plan: f.plan(vWW), Caps: &caps, Timeout: time.Minute})
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("%v %+v", err, out)
	}
	if !slices.Contains(out.Layers, layers.UserNS) || !slices.Contains(out.Layers, layers.PIDNS) {
		t.Errorf("layers %v", out.Layers)
	}
	if f := strings.Fields(out.Stdout); len(f) == 0 || f[0] != "2" {
		t.Errorf("output %q: the shell is not the init's first child", out.Stdout)
	}
	if n := serversRunning(s); n != 1 {
		t.Errorf("%d servers, want 1", n)
	}
}

func TestServersStopTheLeastRecentlyUsedIdleOneBeyondTheirBound(t *testing.T) {
	requireServer(t)
	f := newFixture(t)
	s, run := viaServers(t)
	// maxServers+1 plans that differ only in one extra writable root.
	plans := make([]events.SandboxPlan, maxServers+1)
	for i := range plans {
		plans[i] = f.plan(vWW)
		plans[i].WritableRoots = append(plans[i].WritableRoots, t.TempDir())
	}
	runPlan := func(i int) error {
		out, err := run(context.Background(), Request{Argv: []string{"true"}, Cwd: f.W, Plan: plans[i], Timeout: time.Minute})
		if err == nil && out.ExitCode != 0 {
			err = fmt.Errorf("plan %d: exit %d: %s", i, out.ExitCode, out.SandboxError)
		}
		return err
	}
	pidOf := map[int]int{}
	for i := 0; i < maxServers; i++ {
		before := serverPIDs(s)
		if err := runPlan(i); err != nil {
			t.Fatal(err)
		}
		for _, p := range serverPIDs(s) {
			if !containsInt(before, p) {
				pidOf[i] = p
			}
		}
	}
	// Plan 0 used again: plan 1's server is now the least recently used.
	if err := runPlan(0); err != nil {
		t.Fatal(err)
	}
	// The new plan's server arrives while others run: the pool must pick
	// its victim among idle servers only, and read their use times safely.
	errs := make(chan error, 4)
	for _, i := range []int{maxServers, 0, 2, 3} {
		go func() { errs <- runPlan(i) }()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := serversRunning(s); n != maxServers {
		t.Errorf("%d servers kept, want the bound %d", n, maxServers)
	}
	if containsInt(serverPIDs(s), pidOf[1]) {
		t.Fatalf("plan 1's server (pid %d), the least recently used, is still kept", pidOf[1])
	}
	// Stopped and reaped: the pid no longer names our server.
	deadline := time.Now().Add(30 * time.Second)
	for syscall.Kill(pidOf[1], 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("plan 1's evicted server (pid %d) still runs", pidOf[1])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestServerSeesAMountMadeOnTheHostAfterItStarted(t *testing.T) {
	requireServer(t) // root: the test mounts on the host
	f := newFixture(t)
	s, run := viaServers(t)
	secret := filepath.Join(f.W, "secret")
	if err := os.MkdirAll(secret, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(secret, "key"), "hunter2")
	if out := mustRunWW(t, run, f, "cat", "secret/key"); out.Stdout != "hunter2" {
		t.Fatalf("before the mount: %+v", out)
	}
	first := serverPIDs(s)
	// The user hides the directory behind an empty tmpfs while the session
	// runs; the next command must see what the host sees, as a helper per
	// call would.
	if err := unix.Mount("tmpfs", secret, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(secret, unix.MNT_DETACH) })
	out, err := runWW(run, f, "sh", "-c", "cat secret/key; echo status=$?")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Stdout, "hunter2") || !strings.Contains(out.Stdout, "status=1") {
		t.Fatalf("a command after the host's mount still sees the hidden file: %q", out.Stdout)
	}
	if after := serverPIDs(s); len(after) != 1 || containsInt(first, after[0]) {
		t.Errorf("servers before the mount %v, after %v: want one new server", first, after)
	}
	// No mount since: the server is kept.
	again := serverPIDs(s)
	mustRunWW(t, run, f, "true")
	if now := serverPIDs(s); len(now) != 1 || now[0] != again[0] {
		t.Errorf("servers %v after a call with no mount change, want %v kept", now, again)
	}
}

// alive reports whether pid runs: not gone, and not a zombie (which still
// takes signal 0 until its parent reaps it).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name, which may hold
	// spaces.
	rest := string(b)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	fields := strings.Fields(rest)
	return len(fields) > 0 && fields[0] != "Z"
}
