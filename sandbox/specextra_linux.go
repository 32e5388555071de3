package sandbox

import (
	"context"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/sandbox/internal/proto"
)

// readHostFacts reads what the parent must find on the host before the
// helper's namespaces hide it: the git directories below the roots
// (through the session's walk cache; nil walks every time), and the
// host's pathname unix sockets (network off). It marks its phases on tr.
func readHostFacts(f *hostFacts, plan events.SandboxPlan, walks *gitwalk.Cache, tr *proto.Tracer) {
	if len(f.roots) > 0 {
		f.git = gitwalk.Find(f.roots, f.cwd, walks)
		f.walked = true
		f.targetsExisting = existingTargets(f.git.Targets)
		tr.Mark("gitwalk")
	}
	if !plan.Network {
		socks, complete, err := boundUnixSockets()
		f.sockets, f.socketsComplete = socks, complete && err == nil
		tr.Mark("unix-sockets")
	}
}

// launchLimited is launchHelper inside a leaf cgroup made for this attempt,
// saying afterwards which limit, if any, ended the command.
func launchLimited(ctx context.Context, req Request, helper string, spec Spec, env []string, plan events.SandboxPlan) (events.ExecOutcome, error) {
	cg := newCallCgroup(plan.Limits)
	if cg != nil {
		spec.Limits.Cgroup = cg.Layer()
		spec.Limits.CgroupProcs = cg.Procs()
	}
	req.trace.Mark("cgroup.make")
	out, err := launchHelper(ctx, req, helper, spec, env)
	out.Killed = killedBy(out, plan.Limits, cg.OOMKills())
	_ = cg.Remove() // a leaf left behind holds no process and no limit that matters
	req.trace.Mark("cgroup.remove")
	return out, err
}
