package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/proctree"
)

// The call's leaf cgroup, made by docket; the helper joins it and sets the
// rlimits (sandbox/internal/confine, limits_linux.go).

// callCgroup is the leaf cgroup (one directory per controller on v1, one
// in all on v2) the parent makes for one call.
type callCgroup struct {
	version int
	dirs    []string // leaf directories, removed afterwards
	memDir  string   // where the oom_kill counter is
	layer   string
	procs   []string
}

// newCallCgroup makes a leaf for the call's memory and process limits under
// docket's own cgroup: the v2 hierarchy when /sys/fs/cgroup is one with
// the controllers delegated, else v1's memory and pids hierarchies. It
// returns nil when no limit needs a cgroup or none can be made here
// (not root, read-only cgroupfs, v2 without delegated controllers).
func newCallCgroup(l events.ResourceLimits) *callCgroup {
	if l.MaxMemoryMB <= 0 && l.MaxProcesses <= 0 {
		return nil
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		return newCgroupV2(l, own)
	}
	return newCgroupV1(l, own)
}

func newCgroupV1(l events.ResourceLimits, own []byte) *callCgroup {
	cg := &callCgroup{version: 1}
	var ctrls []string
	try := func(ctrl string, files [][2]string) {
		path, ok := proctree.OwnCgroup(own, ctrl)
		if !ok {
			return
		}
		dir, err := os.MkdirTemp(filepath.Join("/sys/fs/cgroup", ctrl, path), "docket-call-")
		if err != nil {
			return
		}
		for _, kv := range files {
			if err := os.WriteFile(filepath.Join(dir, kv[0]), []byte(kv[1]), 0); err != nil && kv[0] != "memory.memsw.limit_in_bytes" {
				_ = os.Remove(dir)
				return
			}
		}
		cg.dirs = append(cg.dirs, dir)
		// The tasks file moves only the writing thread: the helper's
		// locked thread, the one that forks or becomes the command (and
		// re-executes as the init). Moving the whole process through
		// cgroup.procs takes the kernel's cgroup_threadgroup_rwsem for
		// writing, which waits for an RCU grace period: about 10 ms per
		// call on this machine, the largest part of the helper's start.
		// The command's processes are all forked from that thread, so
		// every one of them is in the leaf; the helper's other threads
		// (Go's runtime) stay where docket is and hold no limit.
		cg.procs = append(cg.procs, filepath.Join(dir, "tasks"))
		ctrls = append(ctrls, ctrl)
		if ctrl == "memory" {
			cg.memDir = dir
		}
	}
	if l.MaxMemoryMB > 0 {
		b := strconv.FormatInt(l.MaxMemoryMB*mib, 10)
		// memsw (memory+swap) only exists with swap accounting; without it
		// swap is not limited, which docs/sandbox.md says.
		try("memory", [][2]string{{"memory.limit_in_bytes", b}, {"memory.memsw.limit_in_bytes", b}})
	}
	if l.MaxProcesses > 0 {
		try("pids", [][2]string{{"pids.max", strconv.FormatInt(l.MaxProcesses, 10)}})
	}
	if len(cg.dirs) == 0 {
		return nil
	}
	cg.layer = LayerCgroup + "-v1:" + strings.Join(ctrls, ",")
	return cg
}

func newCgroupV2(l events.ResourceLimits, own []byte) *callCgroup {
	path, ok := proctree.OwnCgroup(own, "")
	if !ok {
		return nil
	}
	parent := filepath.Join("/sys/fs/cgroup", path)
	b, err := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
	if err != nil {
		return nil
	}
	enabled := strings.Fields(string(b))
	var want, ctrls []string
	if l.MaxMemoryMB > 0 {
		want = append(want, "memory")
	}
	if l.MaxProcesses > 0 {
		want = append(want, "pids")
	}
	for _, c := range want {
		if !contains(enabled, c) {
			// Enabling a controller for children fails (EBUSY) while
			// docket's own cgroup holds processes, unless it is the root.
			if os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+"+c), 0) != nil {
				continue
			}
		}
		ctrls = append(ctrls, c)
	}
	if len(ctrls) == 0 {
		return nil
	}
	dir, err := os.MkdirTemp(parent, "docket-call-")
	if err != nil {
		return nil
	}
	var set []string
	for _, c := range ctrls {
		var err error
		switch c {
		case "memory":
			err = os.WriteFile(filepath.Join(dir, "memory.max"), []byte(strconv.FormatInt(l.MaxMemoryMB*mib, 10)), 0)
			if err == nil {
				_ = os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0)
				// Kill the whole call, not one process of it, when it runs out.
				_ = os.WriteFile(filepath.Join(dir, "memory.oom.group"), []byte("1"), 0)
			}
		case "pids":
			err = os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatInt(l.MaxProcesses, 10)), 0)
		}
		if err == nil {
			set = append(set, c)
		}
	}
	if len(set) == 0 {
		_ = os.Remove(dir)
		return nil
	}
	cg := &callCgroup{version: 2, dirs: []string{dir}, procs: []string{filepath.Join(dir, "cgroup.procs")},
		layer: LayerCgroup + "-v2:" + strings.Join(set, ",")}
	if contains(set, "memory") {
		cg.memDir = dir
	}
	return cg
}

// oomKills reads how many processes the memory limit killed in this leaf.
func (cg *callCgroup) oomKills() int64 {
	if cg == nil || cg.memDir == "" {
		return 0
	}
	file := "memory.oom_control"
	if cg.version == 2 {
		file = "memory.events"
	}
	b, err := os.ReadFile(filepath.Join(cg.memDir, file))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// remove deletes the leaf once its processes are gone. The helper's exit
// killed everything in its PID namespace; the last exits can lag a little.
func (cg *callCgroup) remove() error {
	if cg == nil {
		return nil
	}
	var errs []error
	for _, d := range cg.dirs {
		var err error
		for i := 0; i < 50; i++ {
			if err = os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) {
				err = nil
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("removing cgroup %s: %w", d, err))
		}
	}
	return errors.Join(errs...)
}
