package layers

import (
	"fmt"
	"strings"

	"github.com/docket-engine/docket/events"
)

// The resource limits in words. The layers say how each limit was enforced
// ("cgroup-v1:memory,pids", "rlimit:cpu,fsize,nproc"); the plan says how
// much. A limit the plan sets that no reported layer enforces is missing.

// limitKinds are the limits a plan can set, with the reported mechanisms
// that enforce each ("cgroup" controllers, "rlimit" resources).
func limitKinds(l events.ResourceLimits) []limitKind {
	return []limitKind{
		{name: "memory", value: l.MaxMemoryMB, unit: " MiB", cgroup: "memory",
			words: func(n int64, how string) string {
				return fmt.Sprintf("at most %d MiB (%s); past it the kernel kills the command and the outcome says killed: memory limit", n, how)
			},
			missing: "no cgroup memory controller docket may use, so memory is bounded only by the host"},
		{name: "processes", value: l.MaxProcesses, cgroup: "pids", rlimit: "nproc",
			words: func(n int64, how string) string {
				return fmt.Sprintf("at most %d processes and threads at once (%s): a fork bomb stops there", n, how)
			},
			missing: "no cgroup pids controller, and RLIMIT_NPROC only with a user namespace, so a fork bomb reaches the host's limit"},
		{name: "cpu", value: l.MaxCPUSeconds, unit: " s", rlimit: "cpu",
			words: func(n int64, how string) string {
				return fmt.Sprintf("at most %d s of CPU time per process (%s), then SIGXCPU and SIGKILL", n, how)
			},
			missing: "CPU time is bounded only by the call's time-out"},
		{name: "file size", value: l.MaxFileSizeMB, unit: " MiB", rlimit: "fsize",
			words: func(n int64, how string) string {
				return fmt.Sprintf("no file written past %d MiB (%s): the writer gets SIGXFSZ", n, how)
			},
			missing: "a single file can fill the disk"},
	}
}

type limitKind struct {
	name    string
	value   int64
	unit    string
	cgroup  string // cgroup controller that enforces it, if any
	rlimit  string // rlimit that enforces it, if any
	words   func(n int64, how string) string
	missing string
}

// explainLimits returns a line per limit the plan sets: enforced (with the
// mechanism from layers) or missing.
func explainLimits(l events.ResourceLimits, layers []string) (inForce, missing []Line) {
	cgroups, rlimits := map[string]string{}, map[string]bool{}
	for _, layer := range layers {
		base, detail, _ := strings.Cut(layer, ":")
		for _, d := range strings.Split(detail, ",") {
			switch Base(base) {
			case Cgroup:
				cgroups[d] = base
			case Rlimit:
				rlimits[d] = true
			}
		}
	}
	for _, k := range limitKinds(l) {
		if k.value <= 0 {
			continue
		}
		var how string
		switch {
		case k.cgroup != "" && cgroups[k.cgroup] != "":
			how = cgroups[k.cgroup] + " " + k.cgroup + " controller, for the whole call"
		case k.rlimit != "" && rlimits[k.rlimit]:
			how = "rlimit " + k.rlimit
			if k.rlimit == "nproc" {
				how += ", counted per user in the sandbox's user namespace"
			}
		}
		name := "limit:" + strings.ReplaceAll(k.name, " ", "-")
		if how == "" {
			missing = append(missing, Line{Layer: name, Words: fmt.Sprintf("the plan asks for %d%s, but nothing enforced it: %s", k.value, k.unit, k.missing)})
			continue
		}
		inForce = append(inForce, Line{Layer: name, Words: k.words(k.value, how)})
	}
	return inForce, missing
}
