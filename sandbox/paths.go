package sandbox

import "github.com/docket-engine/docket/events"

// within reports whether p is root or below it; both must be clean. It is
// events.Within, the one definition the plan's producers (states/policy,
// engine/workspace) use too, so a plan means the same to both sides.
func within(p, root string) bool { return events.Within(p, root) }

// underAny reports whether p is within one of roots.
func underAny(p string, roots []string) bool { return events.WithinAny(p, roots) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
