package sandbox

import (
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/proctree"
)

// newCallCgroup makes the call's limits leaf (proctree.NewLimits: the one
// cgroup-leaf type, shared with the tree kill of unsandboxed commands) for
// the plan's memory and process limits; nil when none is needed or can be
// made.
func newCallCgroup(l events.ResourceLimits) *proctree.Leaf {
	return proctree.NewLimits(l.MaxMemoryMB*mib, l.MaxProcesses)
}
