package confine

import (
	"fmt"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
)

// protectBinaries makes each of docket's binaries under a writable root
// read-only and unreplaceable in the helper's mount namespace: every
// directory between its root and the file becomes a mount point (rename
// and rmdir refuse to move one: EBUSY), and the file is bound read-only
// over itself (writes give EROFS; unlink and rename over it, EBUSY).
func protectBinaries(spec proto.Spec) error {
	pinned := map[string]bool{}
	for _, b := range spec.Binaries {
		root := innermostRoot(b, spec.Writable)
		for _, d := range between(root, b) {
			if pinned[d] {
				continue
			}
			if err := selfBind(d); err != nil {
				return fmt.Errorf("pinning %s: %w", d, err)
			}
			pinned[d] = true
		}
		if err := BindReadOnly(b); err != nil {
			return fmt.Errorf("making docket's binary %s read-only: %w", b, err)
		}
	}
	return nil
}

// innermostRoot is the deepest of roots that p lies in.
func innermostRoot(p string, roots []string) string {
	best := ""
	for _, r := range roots {
		if events.Within(p, r) && len(r) > len(best) {
			best = r
		}
	}
	return best
}
