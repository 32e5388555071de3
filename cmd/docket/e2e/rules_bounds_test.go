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

// TestARulesFileThatGrowsWithoutEndFailsInBoundedMemory: the doubling
// file from issue 15 used to grow docket to 24 GB; now exec fails with an
// error naming the file, and the process stays small.
func TestARulesFileThatGrowsWithoutEndFailsInBoundedMemory(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	rules := filepath.Join(home, "rules", "grow.rules")
	writeFile(t, rules, "x = [1]\nfor i in range(40):\n    x = x + x\n")
	cmd := exec.Command(docketBin, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "--model-script", replies(t, "ok"), "hi")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("exec: %v, want exit 2\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), rules+":3") || !strings.Contains(stderr.String(), "uses too much memory") {
		t.Fatalf("the error does not name the file and the bound:\n%s", stderr.String())
	}
	// Peak resident memory, from the kernel: far below what forty
	// doublings need (16 TiB), and below what the machine has.
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > 1<<20 { // KiB: 1 GiB
		t.Fatalf("docket peaked at %d MiB while loading the rules", ru.Maxrss>>10)
	}
}

// cpuTicks is the CPU time pid has used, in clock ticks.
func cpuTicks(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	// Fields after the command name (which is in parentheses).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return utime + stime
}

// TestSIGTERMInterruptsASlowRulesFile: a rules file that would evaluate
// for minutes within its step bound is interrupted by SIGTERM, and docket
// exits as an interrupted run does (1), not as a bad rules file (2).
func TestSIGTERMInterruptsASlowRulesFile(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see the load running")
	}
	home, ws := t.TempDir(), t.TempDir()
	// Each step scans a megabyte: ten million steps take minutes.
	writeFile(t, filepath.Join(home, "rules", "slow.rules"), "x = \"a\" * 1000000\nwhile True:\n    x.find(\"b\")\n")
	cmd := exec.Command(docketBin, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "--model-script", replies(t, "ok"), "hi")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Half a second of CPU: docket starts in a fraction of that, so by
	// then it is evaluating the loop.
	for cpuTicks(t, cmd.Process.Pid) < 50 {
		select {
		case err := <-done:
			t.Fatalf("docket exited before it was signalled: %v\n%s", err, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute): // a test timeout, not the assertion
		_ = cmd.Process.Kill()
		t.Fatalf("docket ignored SIGTERM while loading rules\n%s", stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "interrupted while loading the rules") {
		t.Fatalf("exit: %v, want 1 and an interrupted message\n%s", err, stderr.String())
	}
}
