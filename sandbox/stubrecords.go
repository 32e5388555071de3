package sandbox

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/docket-engine/docket/events"
)

// checkStubRecords refuses stub records a sandboxed command of this plan
// could write. A record is docket's proof that it made a directory, and
// the next start removes what a record names (stubs.RemoveLeft): a
// command able to write one there could name the user's own empty 0555
// directory and have docket delete it. Records are trusted only outside
// the writable roots, or inside a read-only subpath of them (the session
// makes Docket's home one, workspace.ProtectHome). Paths are compared as
// written and with symlinks resolved, so a link into a root is no way
// around it.
func checkStubRecords(records string, plan events.SandboxPlan) error {
	if records == "" || len(plan.WritableRoots) == 0 {
		return nil
	}
	if !filepath.IsAbs(records) {
		return fmt.Errorf("sandbox: stub records %q: not an absolute path", records)
	}
	rec := []string{filepath.Clean(records), resolvedPath(records)}
	var roots, ro []string
	for _, r := range plan.WritableRoots {
		roots = append(roots, r, resolvedPath(r))
	}
	for _, r := range plan.ReadOnlySubpaths {
		ro = append(ro, r, resolvedPath(r))
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

// resolvedPath is p with the symlinks of its longest existing prefix
// resolved (the rest may not exist yet: records are made on first use),
// following a dangling link too: what it names may be made later, by a
// command.
func resolvedPath(p string) string {
	return resolveWithin(filepath.Clean(p), 40)
}

func resolveWithin(p string, budget int) string {
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 && budget > 0 {
			if target, err := os.Readlink(dir); err == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(dir), target)
				}
				return resolveWithin(filepath.Join(target, rest), budget-1)
			}
		}
		if dir == filepath.Dir(dir) {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}
