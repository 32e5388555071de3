package sandbox

import (
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
)

// Linux signal numbers, for exit statuses a shell reports as 128+N.
const (
	sigXCPU = 24
	sigXFSZ = 25
)

// Values of events.ExecOutcome.Killed.
const (
	KilledMemory   = "memory_limit"
	KilledCPU      = "cpu_limit"
	KilledFileSize = "file_size_limit"
)

const mib = 1 << 20

// helperLimits converts the plan's limits for the helper.
func helperLimits(l events.ResourceLimits) proto.Limits {
	return proto.Limits{CPUSeconds: l.MaxCPUSeconds, FileSizeBytes: l.MaxFileSizeMB * mib, Processes: l.MaxProcesses}
}

// killedBy says which limit ended a run, from the cgroup's OOM counter and
// the signal: "" when none did. A Go program ignores SIGXCPU and dies of
// the SIGKILL at the hard limit one second later, so SIGKILL after at
// least the CPU limit's worth of wall time, with no OOM kill, counts as the
// CPU limit too.
func killedBy(out events.ExecOutcome, l events.ResourceLimits, oomKills int64) string {
	if out.TimedOut {
		return ""
	}
	killed9 := out.Signal == "SIGKILL" || (out.Signal == "" && out.ExitCode == 128+9)
	switch {
	case oomKills > 0 && killed9:
		return KilledMemory
	case out.Signal == "SIGXCPU" || (l.MaxCPUSeconds > 0 && out.ExitCode == 128+sigXCPU):
		return KilledCPU
	case out.Signal == "SIGXFSZ" || (l.MaxFileSizeMB > 0 && out.ExitCode == 128+sigXFSZ):
		return KilledFileSize
	case killed9 && l.MaxCPUSeconds > 0 && time.Duration(out.DurationNs) >= time.Duration(l.MaxCPUSeconds)*time.Second:
		return KilledCPU
	}
	return ""
}

// DefaultLimits are the limits a plan gets from configuration that does not
// set them: far above what builds, test suites with 200 children or 64
// threads, and ordinary tools need, low enough that a runaway call cannot
// take the machine (a fork bomb, a leak, a spinning process, a disk filler).
func DefaultLimits() events.ResourceLimits {
	return events.ResourceLimits{MaxProcesses: 4096, MaxMemoryMB: 8192, MaxCPUSeconds: 3600, MaxFileSizeMB: 8192}
}
