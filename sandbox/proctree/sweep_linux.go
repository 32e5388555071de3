package proctree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A leaf is named after the docket that made it: its PID namespace and
// pid. When that docket was killed (kill -9, a crash) its leaves stay,
// with whatever of its commands outlived it (the parent-death signal
// reaches the command, not a setsid daemon of it). The next tree made in
// the same cgroup ends them, as a command must not run on after the
// session that journaled it is gone.
const leafPrefix = "docket-tree-"

// maxSweep bounds how many left leaves one New ends.
const maxSweep = 16

// leafPattern is the MkdirTemp pattern of this docket's leaves; without a
// known PID namespace it names no owner, and such leaves are never swept.
func leafPattern() string {
	ns, ok := pidNamespace()
	if !ok {
		return leafPrefix
	}
	return fmt.Sprintf("%s%d-%d-", leafPrefix, ns, os.Getpid())
}

// pidNamespace is the inode of docket's PID namespace: pids of another
// namespace say nothing about whether a docket there is alive.
func pidNamespace() (uint64, bool) {
	l, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return 0, false
	}
	v, ok := strings.CutPrefix(l, "pid:[")
	if !ok {
		return 0, false
	}
	ns, err := strconv.ParseUint(strings.TrimSuffix(v, "]"), 10, 64)
	return ns, err == nil
}

// leafOwner reads the namespace and pid from a leaf's name.
func leafOwner(name string) (ns uint64, pid int, ok bool) {
	rest, ok := strings.CutPrefix(name, leafPrefix)
	if !ok {
		return 0, 0, false
	}
	parts := strings.SplitN(rest, "-", 3)
	if len(parts) != 3 {
		return 0, 0, false
	}
	ns, err := strconv.ParseUint(parts[0], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	pid, err = strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return 0, 0, false
	}
	return ns, pid, true
}

// sweep ends the leaves under parent whose docket, of this PID namespace,
// is gone: one kill, one removal attempt each (a leaf still busy is tried
// again by the next New), at most maxSweep of them.
func sweep(parent string, version int) {
	ns, ok := pidNamespace()
	if !ok {
		return
	}
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	n := 0
	for _, e := range ents {
		if n >= maxSweep {
			return
		}
		owner, pid, ok := leafOwner(e.Name())
		if !ok || !e.IsDir() || owner != ns || pidAlive(pid) {
			continue
		}
		n++
		l := &Leaf{version: version, dir: filepath.Join(parent, e.Name())}
		l.hasKill = version == 2 && exists(filepath.Join(l.dir, "cgroup.kill"))
		l.killOnce()
		_ = os.Remove(l.dir) // EBUSY while the killed exit: the next New tries again
	}
}

// pidAlive says whether a process with this pid exists (a reused pid reads
// as alive: its leaves are then left alone).
func pidAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// killOnce is one round of kill: cgroup.kill, or freeze, kill, thaw.
func (l *Leaf) killOnce() {
	if l.hasKill {
		_ = os.WriteFile(filepath.Join(l.dir, "cgroup.kill"), []byte("1"), 0) // best effort: the next New tries again
		return
	}
	if len(l.members()) == 0 {
		return
	}
	_ = l.freeze(true) // unfrozen, the kill still lands; a fork in flight waits for the next New
	for _, p := range l.members() {
		_ = unix.Kill(p, unix.SIGKILL) // ESRCH: it exited meanwhile
	}
	_ = l.freeze(false) // best effort: a leaf left frozen holds only killed processes
}
