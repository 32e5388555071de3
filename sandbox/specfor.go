package sandbox

import (
	"os"
	"slices"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/sandbox/internal/proto"
)

// hostFacts is what the host says about a plan at one call, read before
// the spec is built and nowhere else: the command resolved, the filter
// compiled, which roots exist, where docket's binaries lie, the git
// directories the walk found, and the host's unix sockets.
type hostFacts struct {
	cwd, path string
	seccomp   []byte
	// roots are the plan's writable roots that are directories now.
	roots []string
	// binaries are docket's binaries under a root; absentBinaries the
	// paths under a root where a binary docket would pick could be planted.
	binaries, absentBinaries []string
	// git is the walk's result; walked is false without roots.
	git    gitwalk.Set
	walked bool
	// targetsExisting are the git walk's targets that exist now.
	targetsExisting map[string]bool
	// sockets are the host's bound unix sockets (network off only);
	// socketsComplete is false when the list was cut.
	sockets         []string
	socketsComplete bool
}

// specFor builds a call's spec from its journaled plan and the host's
// facts, and nothing else: no I/O, no clock, so the same plan on the same
// host gives the same spec (TestSpecForIsThePlanAndTheFacts). Namespaces
// are the launcher's to choose; the stubs for missing protected paths
// are held by the launcher, which narrows Protected to what it holds.
func specFor(plan events.SandboxPlan, f hostFacts) Spec {
	spec := Spec{V: proto.Version, Mode: plan.Mode, Network: plan.Network, Seccomp: f.seccomp,
		Bridge: plan.Egress, Hidden: plan.Hidden, LocalBinding: plan.Egress && plan.LocalBinding,
		CallSpec: proto.CallSpec{Cwd: f.cwd, Path: f.path}}
	if plan.Mode == ModeWorkspaceWrite {
		spec.Writable = f.roots
		for _, p := range plan.ReadOnlySubpaths {
			if events.WithinAny(p, spec.Writable) {
				spec.Protected = append(spec.Protected, p)
			}
		}
	}
	spec.Binaries = f.binaries
	for _, p := range f.absentBinaries {
		if !slices.Contains(spec.Protected, p) {
			spec.Protected = append(spec.Protected, p)
		}
	}
	if len(spec.Writable) > 0 && f.walked {
		set := f.git
		for _, d := range set.Held {
			if !slices.Contains(spec.Protected, d) {
				spec.Protected = append(spec.Protected, d)
			}
		}
		// What the walk found is somebody's: if it vanished since (another
		// session's stub released, a test's directory being removed),
		// holding it would create a directory in their tree. Scanned paths
		// are bound if still there and never created.
		for _, d := range set.Found {
			if !slices.Contains(spec.Protected, d) {
				spec.Protected = append(spec.Protected, d)
				spec.Scanned = append(spec.Scanned, d)
			}
		}
		for _, d := range set.Targets {
			if slices.Contains(spec.Protected, d) {
				continue
			}
			spec.Protected = append(spec.Protected, d)
			if f.targetsExisting[d] {
				spec.Scanned = append(spec.Scanned, d)
			}
		}
		spec.Unseen = set.Unseen
		spec.GitScan = proto.GitScanComplete
		if !set.Complete {
			spec.GitScan = proto.GitScanPartial
		}
	}
	if !plan.Network {
		spec.UnixSockets = f.sockets
		spec.UnixSocketsPartial = !f.socketsComplete
	}
	spec.Limits = helperLimits(plan.Limits)
	return spec
}

// existingTargets says which of the walk's targets exist now.
func existingTargets(targets []string) map[string]bool {
	m := map[string]bool{}
	for _, d := range targets {
		if _, err := os.Lstat(d); err == nil {
			m[d] = true
		}
	}
	return m
}
