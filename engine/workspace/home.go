package workspace

import (
	"path/filepath"
	"slices"

	"github.com/docket-engine/docket/events"
)

// ProtectHome returns plan with Docket's home (its rules, config, auth
// tokens and journals) among the read-only subpaths when it lies in a
// writable root, so that a sandboxed command can never rewrite what
// decides how docket treats it, like .git. Other plans are returned as
// they are: outside the roots nothing is writable anyway.
func ProtectHome(plan events.SandboxPlan, home string) events.SandboxPlan {
	if home == "" || !filepath.IsAbs(home) || len(plan.WritableRoots) == 0 {
		return plan
	}
	var add []string
	for _, h := range []string{filepath.Clean(home), RealPath(home)} {
		if events.WithinAny(h, plan.WritableRoots) && !slices.Contains(plan.ReadOnlySubpaths, h) && !slices.Contains(add, h) {
			add = append(add, h)
		}
	}
	if len(add) == 0 {
		return plan
	}
	plan.ReadOnlySubpaths = slices.Sorted(slices.Values(append(slices.Clone(plan.ReadOnlySubpaths), add...)))
	return plan
}
