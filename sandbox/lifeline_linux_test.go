package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
)

// TestParentDeathSignalIgnoresThreadChurn: PR_SET_PDEATHSIG fires when the
// thread that forked a process ends, and the Go runtime ends a thread
// whenever a goroutine locked to it returns. runProcess holds its thread
// until the process is reaped, so commands started while other goroutines
// churn locked threads are never killed by it. (With the hold removed,
// 27 of 192 commands over three runs died here with SIGKILL.)
func TestParentDeathSignalIgnoresThreadChurn(t *testing.T) {
	stop := make(chan struct{})
	churned := make(chan struct{})
	go func() {
		defer close(churned)
		for {
			select {
			case <-stop:
				return
			default:
			}
			done := make(chan struct{})
			go func() { runtime.LockOSThread(); close(done) }() // its thread exits with it
			<-done
		}
	}()
	defer func() { close(stop); <-churned }()
	const n = 64
	var wg sync.WaitGroup
	outs := make([]events.ExecOutcome, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = Run(context.Background(), Request{Argv: []string{"bash", "-c", "sleep 0.2; echo ok"},
				Plan: events.SandboxPlan{Mode: ModeNone}, Timeout: 5 * time.Minute})
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || outs[i].Signal != "" || outs[i].ExitCode != 0 || outs[i].Stdout != "ok\n" {
			t.Errorf("command %d: err %v, signal %q, exit %d, stdout %q", i, errs[i], outs[i].Signal, outs[i].ExitCode, outs[i].Stdout)
		}
	}
}

// commandParent plays docket for TestCommandServerDiesWithItsParent: it
// starts "bash -c ': TOKEN; sleep 1000'" with Command (as an MCP server
// is), waits for its layers, says "ready" and waits to be killed.
func commandParent(args []string) int {
	exe, err := os.Executable()
	if err != nil {
		return fail("%v", err)
	}
	p, err := Command(Request{Argv: []string{"bash", "-c", ": " + args[0] + "; sleep 1000"}, Cwd: os.TempDir(),
		Plan: events.SandboxPlan{Mode: ModeReadOnly}, HelperPath: exe})
	if err != nil {
		return fail("%v", err)
	}
	if err := p.Cmd.Start(); err != nil {
		return fail("%v", err)
	}
	if _, err := p.Layers(context.Background()); err != nil {
		return fail("%v", err)
	}
	fmt.Println("ready")
	select {}
}

// TestCommandServerDiesWithItsParent: a server started with Command (an
// MCP server) in a PID namespace dies when the process that started it is
// killed with SIGKILL: its init sees the exit pipe lose its reader.
func TestCommandServerDiesWithItsParent(t *testing.T) {
	if !Probe().Root && !Probe().UserNamespaces {
		t.Skip("no PID namespace on this machine: Command's server has no init to watch the lifeline")
	}
	token := fmt.Sprintf("lifeline-cmd-%d", time.Now().UnixNano())
	parent := exec.Command(testBinary(t), attackArg, "command-parent", token)
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	parent.Stderr = &stderr
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		_ = parent.Process.Kill()
		_ = parent.Wait()
		t.Fatalf("parent did not start the server: %q %v\n%s", line, err, stderr.String())
	}
	if len(pidsWith(t, token)) == 0 {
		t.Fatal("the server is not running; the test cannot tell whether it dies")
	}
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait() // killed: the error says so
	for range 600 {
		if len(pidsWith(t, token)) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the server outlived the process that started it: pids %v", pidsWith(t, token))
}

// pidsWith lists the pids whose command line contains token.
func pidsWith(t *testing.T, token string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), token) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
