// Package proctreetest starts the escape the proctree tests are about: a
// daemon that leaves its process group with setsid, writes its pid to a
// file and runs on.
package proctreetest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Daemon is one setsid daemon a test's command starts.
type Daemon struct {
	// Marker is in the daemon's command line, so that a reused pid is
	// never taken for it.
	Marker string
	// PidFile is where the daemon writes its pid.
	PidFile string
}

// NewDaemon names a daemon unique to t.
func NewDaemon(t *testing.T) Daemon {
	t.Helper()
	dir := t.TempDir()
	return Daemon{Marker: fmt.Sprintf("proctree-daemon-%d-%s", os.Getpid(), filepath.Base(dir)), PidFile: filepath.Join(dir, "daemon.pid")}
}

// Script is a shell script that starts the daemon (setsid -f: a new
// session, so outside the caller's process group, keeping the inherited
// stdout and stderr open), waits until it has written its pid, prints
// "started" and, when wait is set, sleeps instead of exiting.
func (d Daemon) Script(wait bool) string {
	s := fmt.Sprintf(`setsid -f sh -c 'echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; while :; do sleep 1; done' %s %s
i=0
while [ ! -s %s ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done
echo started
`, d.Marker, shellQuote(d.PidFile), shellQuote(d.PidFile))
	if wait {
		s += "exec sleep 1000\n"
	}
	return s
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Pid waits (bounded) for the daemon's pid file and returns the pid.
func (d Daemon) Pid(t *testing.T) int {
	t.Helper()
	for range 1000 {
		b, err := os.ReadFile(d.PidFile)
		if err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("daemon pid file %s: %v", d.PidFile, err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the daemon never wrote its pid to %s", d.PidFile)
	return 0
}

// Alive says whether pid is still the daemon and not a zombie.
func (d Daemon) Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	// A zombie's command line is empty.
	return err == nil && bytes.Contains(b, []byte(d.Marker))
}

// WaitGone waits (bounded) until the daemon is gone and fails t if it is
// not.
func (d Daemon) WaitGone(t *testing.T, pid int) {
	t.Helper()
	for range 1000 {
		if !d.Alive(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	d.Kill(pid)
	t.Fatalf("daemon %d (%s) outlived the call", pid, d.Marker)
}

// Kill ends the daemon if it is still there (a test's cleanup).
func (d Daemon) Kill(pid int) {
	if d.Alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL) // ESRCH: gone meanwhile
	}
}
