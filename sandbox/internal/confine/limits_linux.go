package confine

import (
	"os"
	"strings"

	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
	"golang.org/x/sys/unix"
)

// Resource limits. The helper sets rlimits on itself before it runs the
// command (RLIMIT_CPU per process, RLIMIT_FSIZE, and RLIMIT_NPROC where it
// counts only the sandbox: in a user namespace of its own), and joins a
// leaf cgroup the parent made for the call (memory and pids for the whole
// call). Every part fails soft: what was enforced is reported as a layer,
// what was not is absent from the layers.
//
// RLIMIT_NPROC is not used without a user namespace: it counts every
// process of the real uid on the host (for root, the kernel does not
// enforce it at all), so it would either fail builds or limit nothing.

// applyLimits joins the call's cgroup and sets the rlimits, in the helper,
// before the mounts make /sys read-only. It returns the layers enforced.
func applyLimits(spec proto.Spec) []string {
	var enforced []string
	l := spec.Limits
	joined := len(l.CgroupProcs) > 0
	for _, f := range l.CgroupProcs {
		// "0" is the writer itself: the whole helper on v2 (cgroup.procs),
		// this locked thread on v1 (tasks, see proctree.NewLimits), which runs
		// the command or the init that forks it.
		if err := os.WriteFile(f, []byte("0"), 0); err != nil {
			joined = false
		}
	}
	if joined && l.Cgroup != "" {
		enforced = append(enforced, l.Cgroup)
	}
	var set []string
	if l.CPUSeconds > 0 {
		// SIGXCPU at the soft limit (most programs die of it), SIGKILL one
		// second later for those that ignore it (Go programs do).
		if setRlimit(unix.RLIMIT_CPU, uint64(l.CPUSeconds), uint64(l.CPUSeconds)+1) == nil {
			set = append(set, "cpu")
		}
	}
	if l.FileSizeBytes > 0 && setRlimit(unix.RLIMIT_FSIZE, uint64(l.FileSizeBytes), uint64(l.FileSizeBytes)) == nil {
		set = append(set, "fsize")
	}
	if l.Processes > 0 && spec.NS.User && setRlimit(unix.RLIMIT_NPROC, uint64(l.Processes), uint64(l.Processes)) == nil {
		set = append(set, "nproc")
	}
	if len(set) > 0 {
		enforced = append(enforced, layers.Rlimit+":"+strings.Join(set, ","))
	}
	return enforced
}

// setRlimit lowers a limit, never raising it past the current hard limit.
func setRlimit(res int, soft, hard uint64) error {
	var cur unix.Rlimit
	if err := unix.Getrlimit(res, &cur); err != nil {
		return err
	}
	if hard > cur.Max {
		hard = cur.Max
	}
	if soft > hard {
		soft = hard
	}
	return unix.Setrlimit(res, &unix.Rlimit{Cur: soft, Max: hard})
}
