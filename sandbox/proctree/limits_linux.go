package proctree

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docket-engine/docket/sandbox/layers"
)

// A sandboxed call's limits leaf: docket makes it (NewLimits), the helper
// or the server's init joins it and sets the rlimits
// (sandbox/internal/confine, limits_linux.go), and docket reads its OOM
// counter and removes it after the call.

// Bounds of a limits leaf's removal: the helper's exit killed everything
// in its PID namespace, and the last exits lag a little.
const (
	limitsRemoveRounds = 50
	limitsRemovePause  = 2 * time.Millisecond
)

// NewLimits makes a leaf for a sandboxed call's memory and process limits
// (memoryBytes and processes; 0 is no limit) under docket's own cgroup:
// the v2 hierarchy when /sys/fs/cgroup is one with the controllers
// delegated, else v1's memory and pids hierarchies. It returns nil when no
// limit needs a cgroup or none can be made here (not root, read-only
// cgroupfs, v2 without delegated controllers).
func NewLimits(memoryBytes, processes int64) *Leaf {
	l := limits{memory: memoryBytes, processes: processes}
	if l.memory <= 0 && l.processes <= 0 {
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

// limits are the limits a limits leaf sets.
type limits struct{ memory, processes int64 }

func newCgroupV1(l limits, own []byte) *Leaf {
	cg := &Leaf{version: 1, removeRounds: limitsRemoveRounds, removePause: limitsRemovePause}
	var ctrls []string
	try := func(ctrl string, files [][2]string) {
		path, ok := OwnCgroup(own, ctrl)
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
	if l.memory > 0 {
		b := strconv.FormatInt(l.memory, 10)
		// memsw (memory+swap) only exists with swap accounting; without it
		// swap is not limited, which docs/sandbox.md says.
		try("memory", [][2]string{{"memory.limit_in_bytes", b}, {"memory.memsw.limit_in_bytes", b}})
	}
	if l.processes > 0 {
		try("pids", [][2]string{{"pids.max", strconv.FormatInt(l.processes, 10)}})
	}
	if len(cg.dirs) == 0 {
		return nil
	}
	cg.layer = layers.Cgroup + "-v1:" + strings.Join(ctrls, ",")
	return cg
}

func newCgroupV2(l limits, own []byte) *Leaf {
	path, ok := OwnCgroup(own, "")
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
	if l.memory > 0 {
		want = append(want, "memory")
	}
	if l.processes > 0 {
		want = append(want, "pids")
	}
	for _, c := range want {
		if !slices.Contains(enabled, c) {
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
			err = os.WriteFile(filepath.Join(dir, "memory.max"), []byte(strconv.FormatInt(l.memory, 10)), 0)
			if err == nil {
				_ = os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0)
				// Kill the whole call, not one process of it, when it runs out.
				_ = os.WriteFile(filepath.Join(dir, "memory.oom.group"), []byte("1"), 0)
			}
		case "pids":
			err = os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatInt(l.processes, 10)), 0)
		}
		if err == nil {
			set = append(set, c)
		}
	}
	if len(set) == 0 {
		_ = os.Remove(dir)
		return nil
	}
	cg := &Leaf{version: 2, dir: dir, dirs: []string{dir}, procs: []string{filepath.Join(dir, "cgroup.procs")},
		layer: layers.Cgroup + "-v2:" + strings.Join(set, ","), removeRounds: limitsRemoveRounds, removePause: limitsRemovePause}
	if slices.Contains(set, "memory") {
		cg.memDir = dir
	}
	return cg
}

// OOMKills reads how many processes the memory limit killed in this leaf;
// 0 for a nil leaf.
func (cg *Leaf) OOMKills() int64 {
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

// Layer is the limits leaf's layer name ("cgroup-v2:memory,pids"), for
// the helper to report once it joined; "" for a nil leaf.
func (cg *Leaf) Layer() string {
	if cg == nil {
		return ""
	}
	return cg.layer
}

// Procs are the files of the limits leaf a process joins it by writing
// "0" to: cgroup.procs on v2, tasks on v1 (see newCgroupV1).
func (cg *Leaf) Procs() []string {
	if cg == nil {
		return nil
	}
	return cg.procs
}
