package sandbox

import (
	"context"
	"os"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/gitwalk"
)

// addFSAndLimits completes a helper spec with what the parent must find on
// the host before the helper's namespaces hide it: the other git
// directories to protect (workspace-write), the host's pathname unix
// sockets to cover (network off), and the plan's resource limits.
func addFSAndLimits(spec *helperSpec, plan events.SandboxPlan) {
	addFSAndLimitsWith(spec, plan, nil, nil)
}

// addFSAndLimitsWith is addFSAndLimits with the session's walk cache (nil:
// none) and marking its phases on tr.
func addFSAndLimitsWith(spec *helperSpec, plan events.SandboxPlan, walks *gitwalk.Cache, tr *tracer) {
	if len(spec.Writable) > 0 {
		set := gitwalk.Find(spec.Writable, spec.Cwd, walks)
		for _, d := range set.Held {
			if !contains(spec.Protected, d) {
				spec.Protected = append(spec.Protected, d)
			}
		}
		// What the walk found is somebody's: if it vanished since (another
		// session's stub released, a test's directory being removed),
		// holding it would create a directory in their tree. Scanned paths
		// are bound if still there and never created.
		for _, d := range set.Found {
			if !contains(spec.Protected, d) {
				spec.Protected = append(spec.Protected, d)
				spec.Scanned = append(spec.Scanned, d)
			}
		}
		for _, d := range set.Targets {
			if contains(spec.Protected, d) {
				continue
			}
			spec.Protected = append(spec.Protected, d)
			if _, err := os.Lstat(d); err == nil {
				spec.Scanned = append(spec.Scanned, d)
			}
		}
		spec.Unseen = set.Unseen
		spec.GitScan = gitScanComplete
		if !set.Complete {
			spec.GitScan = gitScanPartial
		}
		tr.mark("gitwalk")
	}
	if !plan.Network {
		socks, complete, err := boundUnixSockets()
		spec.UnixSockets = socks
		spec.UnixSocketsPartial = !complete || err != nil
		tr.mark("unix-sockets")
	}
	spec.Limits = helperLimits(plan.Limits)
}

// launchLimited is launchHelper inside a leaf cgroup made for this attempt,
// saying afterwards which limit, if any, ended the command.
func launchLimited(ctx context.Context, req Request, helper string, spec helperSpec, env []string, plan events.SandboxPlan) (events.ExecOutcome, error) {
	cg := newCallCgroup(plan.Limits)
	if cg != nil {
		spec.Limits.Cgroup = cg.layer
		spec.Limits.CgroupProcs = cg.procs
	}
	req.trace.mark("cgroup.make")
	out, err := launchHelper(ctx, req, helper, spec, env)
	out.Killed = killedBy(out, plan.Limits, cg.oomKills())
	_ = cg.remove() // a leaf left behind holds no process and no limit that matters
	req.trace.mark("cgroup.remove")
	return out, err
}
