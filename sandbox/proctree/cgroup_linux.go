package proctree

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Bounds of the kill and removal loops: a SIGKILLed process is gone in
// microseconds unless it sleeps uninterruptibly (D state) on slow I/O.
const (
	killRounds  = 50
	pollRounds  = 400
	pollPause   = 5 * time.Millisecond
	freezeTries = 200
)

// Leaf is a cgroup leaf docket makes for one call; docket has this one
// type of them. A Tree's leaf, which its command is started in and which
// is killed as a whole, is one directory of the v2 hierarchy or of v1's
// freezer hierarchy. A sandboxed call's limits leaf (NewLimits), which
// the helper joins, is one directory on v2 and one per controller (memory,
// pids) on v1. Remove deletes either.
type Leaf struct {
	version int
	// dir is a Tree's leaf, the one it starts in and kills; dirs are all
	// of the leaf's directories, which Remove deletes.
	dir  string
	dirs []string
	// parentTasks is, on v1, the tasks file of docket's own freezer
	// cgroup, where the forking thread goes back to.
	parentTasks string
	hasKill     bool // v2: cgroup.kill exists (Linux 5.14)
	// A limits leaf's: where the oom_kill counter is, the layer it gives,
	// the files a process joins it through.
	memDir string
	layer  string
	procs  []string
	// How long Remove tries: the last exits lag a little.
	removeRounds int
	removePause  time.Duration
}

// v2Root is the mount point of the v2 hierarchy: /sys/fs/cgroup on a pure
// v2 host, /sys/fs/cgroup/unified on a hybrid one.
func v2Root() string {
	for _, r := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		if _, err := os.Stat(filepath.Join(r, "cgroup.controllers")); err == nil {
			return r
		}
	}
	return ""
}

func newLeafV2(own []byte, freeze bool) *Leaf {
	root := v2Root()
	path, ok := OwnCgroup(own, "")
	if root == "" || !ok {
		return nil
	}
	sweep(filepath.Join(root, path), 2)
	dir, err := os.MkdirTemp(filepath.Join(root, path), leafPattern())
	if err != nil {
		return nil
	}
	l := &Leaf{version: 2, dir: dir, dirs: []string{dir}, hasKill: !freeze && exists(filepath.Join(dir, "cgroup.kill")),
		removeRounds: pollRounds, removePause: pollPause}
	if !l.hasKill && !exists(filepath.Join(dir, "cgroup.freeze")) {
		// Linux < 5.2: neither an atomic kill nor a freezer to make the
		// kill loop race-free.
		_ = os.Remove(dir)
		return nil
	}
	return l
}

func newLeafV1(own []byte) *Leaf {
	path, ok := OwnCgroup(own, "freezer")
	if !ok {
		return nil
	}
	parent := filepath.Join("/sys/fs/cgroup/freezer", path)
	sweep(parent, 1)
	dir, err := os.MkdirTemp(parent, leafPattern())
	if err != nil {
		return nil
	}
	if !exists(filepath.Join(dir, "freezer.state")) {
		_ = os.Remove(dir)
		return nil
	}
	return &Leaf{version: 1, dir: dir, dirs: []string{dir}, parentTasks: filepath.Join(parent, "tasks"),
		removeRounds: pollRounds, removePause: pollPause}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// OwnCgroup returns docket's cgroup path in the hierarchy whose controller
// list (field 2 of /proc/self/cgroup) contains ctrl ("" for v2's "0::").
// The sandbox's limits find their hierarchy with it too.
func OwnCgroup(procSelfCgroup []byte, ctrl string) (string, bool) {
	sc := bufio.NewScanner(strings.NewReader(string(procSelfCgroup)))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if ctrl == "" && parts[0] == "0" && parts[1] == "" {
			return parts[2], true
		}
		for _, c := range strings.Split(parts[1], ",") {
			if ctrl != "" && c == ctrl {
				return parts[2], true
			}
		}
	}
	return "", false
}

// start starts cmd inside the leaf. The caller has locked the thread.
func (l *Leaf) start(cmd *exec.Cmd, sys *syscall.SysProcAttr) error {
	if l.version == 2 {
		// The child is born in the leaf (clone3 with CLONE_INTO_CGROUP):
		// there is no moment at which it or a child of it is outside.
		fd, err := unix.Open(l.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return wrapStart(CgroupV2, err)
		}
		defer func() { _ = unix.Close(fd) }() // a directory opened for reading
		sys.UseCgroupFD, sys.CgroupFD = true, fd
		if err := cmd.Start(); err != nil {
			sys.UseCgroupFD, sys.CgroupFD = false, 0
			return wrapStart(CgroupV2, err)
		}
		return nil
	}
	// v1 has no clone into a cgroup: this thread joins the leaf (tasks
	// moves the writer only, not docket), forks, and goes back. Everything
	// the child forks is born in the leaf.
	if err := os.WriteFile(filepath.Join(l.dir, "tasks"), []byte("0"), 0); err != nil {
		return wrapStart(CgroupV1, err)
	}
	err := cmd.Start()
	if berr := os.WriteFile(l.parentTasks, []byte("0"), 0); berr != nil {
		if err != nil {
			return wrapStart(CgroupV1, errors.Join(err, berr))
		}
		return errStuck
	}
	if err != nil {
		return wrapStart(CgroupV1, err)
	}
	return nil
}

// members lists the processes in the leaf, docket itself excluded (on v1
// the forking thread is briefly a member).
func (l *Leaf) members() []int {
	b, err := os.ReadFile(filepath.Join(l.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if p, err := strconv.Atoi(f); err == nil && p != self && p > 0 {
			pids = append(pids, p)
		}
	}
	return pids
}

// kill sends SIGKILL to every process in the leaf. With cgroup.kill the
// kernel does it at once, forks in flight included; otherwise the leaf is
// frozen (no process can fork while frozen), every member killed and the
// leaf thawed (the killed ones then die), until it is empty.
func (l *Leaf) kill() error {
	if l.version == 2 && l.hasKill {
		if err := os.WriteFile(filepath.Join(l.dir, "cgroup.kill"), []byte("1"), 0); err != nil {
			return fmt.Errorf("proctree: killing %s: %w", l.dir, err)
		}
		return nil
	}
	for range killRounds {
		if len(l.members()) == 0 {
			return nil
		}
		// Unfrozen (the freeze failed or timed out) the kill still lands;
		// a fork in flight then is found by the next round.
		_ = l.freeze(true)
		for _, p := range l.members() {
			_ = unix.Kill(p, unix.SIGKILL) // ESRCH: it exited meanwhile
		}
		if err := l.freeze(false); err != nil {
			return err
		}
		// The killed exit once thawed.
		time.Sleep(pollPause)
	}
	if n := len(l.members()); n > 0 {
		return fmt.Errorf("proctree: %d processes left in %s after %d rounds of killing", n, l.dir, killRounds)
	}
	return nil
}

// freeze freezes or thaws the leaf; freezing waits (bounded) until every
// member is frozen.
func (l *Leaf) freeze(on bool) error {
	file, val, state, want := "freezer.state", "THAWED", "freezer.state", "THAWED"
	if on {
		val, want = "FROZEN", "FROZEN"
	}
	if l.version == 2 {
		file, val, state, want = "cgroup.freeze", "0", "cgroup.events", "frozen 0"
		if on {
			val, want = "1", "frozen 1"
		}
	}
	if err := os.WriteFile(filepath.Join(l.dir, file), []byte(val), 0); err != nil {
		return fmt.Errorf("proctree: writing %s to %s: %w", val, filepath.Join(l.dir, file), err)
	}
	if !on {
		return nil
	}
	for range freezeTries {
		b, err := os.ReadFile(filepath.Join(l.dir, state))
		if err != nil {
			return fmt.Errorf("proctree: reading %s: %w", filepath.Join(l.dir, state), err)
		}
		if strings.Contains(string(b), want) {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("proctree: %s did not freeze", l.dir)
}

// waitEmpty waits, bounded, until no process is left in the leaf.
func (l *Leaf) waitEmpty() error {
	for range pollRounds {
		if len(l.members()) == 0 {
			return nil
		}
		time.Sleep(pollPause)
	}
	return fmt.Errorf("proctree: processes %v still in %s", l.members(), l.dir)
}

// Remove deletes the leaf's directories once its processes are gone,
// trying for a bounded time since the last exits can lag a little. A nil
// leaf has nothing to remove.
func (l *Leaf) Remove() error {
	if l == nil {
		return nil
	}
	var errs []error
	for _, d := range l.dirs {
		var err error
		for range l.removeRounds {
			if err = os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) {
				err = nil
				break
			}
			time.Sleep(l.removePause)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("proctree: removing %s: %w", d, err))
		}
	}
	return errors.Join(errs...)
}
