package sandbox

import (
	"fmt"
	"path/filepath"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/internal/realpath"
)

// checkStubRecords refuses stub records a sandboxed command of this plan
// could write. A record is docket's proof that it made a directory, and
// the next start removes what a record names (stubs.RemoveLeft): a
// command able to write one there could name the user's own empty 0555
// directory and have docket delete it. Records are trusted only outside
// the writable roots, or inside a read-only subpath of them (the session
// makes Docket's home one, workspace.ProtectHome). Paths are compared as
// written and with symlinks resolved (even dangling ones: what a link
// names may be made later, by a command), so a link into a root is no
// way around it.
func checkStubRecords(records string, plan events.SandboxPlan) error {
	if records == "" || len(plan.WritableRoots) == 0 {
		return nil
	}
	if !filepath.IsAbs(records) {
		return fmt.Errorf("sandbox: stub records %q: not an absolute path", records)
	}
	rec := []string{filepath.Clean(records), realpath.Resolve(records)}
	var roots, ro []string
	for _, r := range plan.WritableRoots {
		roots = append(roots, r, realpath.Resolve(r))
	}
	for _, r := range plan.ReadOnlySubpaths {
		ro = append(ro, r, realpath.Resolve(r))
	}
	for _, p := range rec {
		for _, root := range roots {
			if events.Within(p, root) && !events.WithinAny(p, ro) {
				return fmt.Errorf("sandbox: stub records %s lie inside writable root %s, where a sandboxed command could forge a record and have docket remove a directory it did not make: keep Docket's home (--home, $DOCKET_HOME) outside the writable roots or read-only", records, root)
			}
		}
	}
	return nil
}
