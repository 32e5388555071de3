package proctree_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docket-engine/docket/sandbox/proctree"
	"github.com/docket-engine/docket/sandbox/proctree/proctreetest"
)

// Environment of the stand-in for a docket that dies: the daemon's marker
// and pid file, and the mechanism to use.
const (
	envMarker  = "PROCTREE_TEST_DAEMON_MARKER"
	envPidFile = "PROCTREE_TEST_DAEMON_PIDFILE"
	envMech    = "PROCTREE_TEST_MECHANISM"
)

// TestMain lets the test binary be a docket that starts a daemon in a tree
// and is then killed (TestLeavesOfAKilledDocketAreSwept).
func TestMain(m *testing.M) {
	if marker := os.Getenv(envMarker); marker != "" {
		os.Exit(leaveADaemon(proctreetest.Daemon{Marker: marker, PidFile: os.Getenv(envPidFile)}, proctree.Mechanism(os.Getenv(envMech))))
	}
	os.Exit(m.Run())
}

// leaveADaemon starts the daemon in a tree, prints the tree's leaf name
// prefix and waits to be killed.
func leaveADaemon(d proctreetest.Daemon, m proctree.Mechanism) int {
	tree := proctree.New(only(m))
	if tree.Mechanism() != m {
		fmt.Println("mechanism", tree.Mechanism())
		return 0
	}
	cmd, err := tree.Start(func() *exec.Cmd { return exec.Command("sh", "-c", d.Script(true)) })
	if err != nil {
		fmt.Println("start:", err)
		return 1
	}
	for range 1000 {
		if _, err := os.Stat(d.PidFile); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("ready")
	_ = cmd.Wait() // killed before it returns
	return 0
}

// TestLeavesOfAKilledDocketAreSwept: a docket killed with -9 leaves its
// tree's leaf and the setsid daemon in it running (the attack); the next
// tree made in the same cgroup kills the daemon and removes the leaf.
func TestLeavesOfAKilledDocketAreSwept(t *testing.T) {
	for _, m := range []proctree.Mechanism{proctree.CgroupV2, proctree.CgroupV1} {
		t.Run(string(m), func(t *testing.T) {
			d := proctreetest.NewDaemon(t)
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			stand := exec.Command(exe)
			stand.Env = append(os.Environ(), envMarker+"="+d.Marker, envPidFile+"="+d.PidFile, envMech+"="+string(m))
			out, err := stand.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := stand.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			if strings.HasPrefix(line, "mechanism") {
				_ = stand.Wait()
				t.Skipf("this machine gives %s", strings.TrimSpace(line))
			}
			if line != "ready\n" {
				_ = stand.Process.Kill()
				_ = stand.Wait()
				t.Fatalf("stand-in said %q", line)
			}
			pid := d.Pid(t)
			defer d.Kill(pid)
			standPid := stand.Process.Pid
			_ = stand.Process.Signal(syscall.SIGKILL)
			_ = stand.Wait()
			if !d.Alive(pid) {
				t.Fatalf("daemon %d died with the docket that started it: the attack does not work here", pid)
			}
			leaf := leafOf(t, pid, m)
			if !strings.Contains(filepath.Base(leaf), fmt.Sprintf("-%d-", standPid)) {
				t.Fatalf("the daemon is in %s, not a leaf named after its docket (pid %d)", leaf, standPid)
			}
			// The next trees sweep; the first may find the leaf still busy.
			for range 100 {
				if err := proctree.New(only(m)).Close(); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(leaf); err != nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			d.WaitGone(t, pid)
			if _, err := os.Stat(leaf); err == nil {
				t.Errorf("the leaf %s of the killed docket is still there", leaf)
			}
		})
	}
}

// leafOf is the directory of pid's cgroup in the hierarchy of m.
func leafOf(t *testing.T, pid int, m proctree.Mechanism) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		switch {
		case len(parts) != 3:
		case m == proctree.CgroupV2 && parts[0] == "0" && parts[1] == "":
			for _, root := range []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup"} {
				if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err == nil {
					return filepath.Join(root, parts[2])
				}
			}
		case m == proctree.CgroupV1 && parts[1] == "freezer":
			return filepath.Join("/sys/fs/cgroup/freezer", parts[2])
		}
	}
	t.Fatalf("no %s cgroup for pid %d in %q", m, pid, b)
	return ""
}
