package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/internal/realpath"
)

// checkStubRecords refuses stub records a sandboxed command of this plan
// could write. A record is docket's proof that it made a directory, and
// the next start removes what a record names (stubs.RemoveLeft): a
// command able to write one there could name the user's own empty 0555
// directory and have docket delete it. Records are trusted only outside
// the writable roots, or inside a read-only subpath of them (the session
// makes Docket's home one, workspace.ProtectHome). Every path is compared
// as the kernel resolves it when writing (realpath.Resolve: symlinks, even
// dangling ones, and ".." after them), the one way the plan's roots are
// resolved and bound: a link into a root is no way around it, and
// "link/.." is the link's target's parent, not the link's.
func checkStubRecords(records string, plan events.SandboxPlan) error {
	_, err := checkStubRecordsSettled(records, plan)
	return err
}

// checkStubRecordsSettled is checkStubRecords, and says too whether its
// pass is settled: the records path holds no symlink and no "..", lies
// outside every writable root (not merely in a read-only subpath of one),
// and every root is resolved as written. Nothing a sandboxed command can
// write then changes where the records or the roots lie, so the pass
// holds for every later run of the plan. A path with a link in it may
// have the link inside a root, where a command could point it elsewhere
// between runs; such a pass is checked again on each run.
func checkStubRecordsSettled(records string, plan events.SandboxPlan) (bool, error) {
	if records == "" || len(plan.WritableRoots) == 0 {
		return true, nil
	}
	if !filepath.IsAbs(records) {
		return false, fmt.Errorf("sandbox: stub records %q: not an absolute path", records)
	}
	rec := realpath.Resolve(records)
	// Resolved as written: no link, no "..", nothing to clean.
	settled := rec == records
	for _, root := range plan.WritableRoots {
		r := realpath.Resolve(root)
		settled = settled && r == root
		if !events.Within(rec, r) {
			continue
		}
		for _, ro := range plan.ReadOnlySubpaths {
			if events.Within(rec, realpath.Resolve(ro)) {
				return false, nil
			}
		}
		return false, fmt.Errorf("sandbox: stub records %s lie inside writable root %s, where a sandboxed command could forge a record and have docket remove a directory it did not make: keep Docket's home (--home, $DOCKET_HOME) outside the writable roots or read-only", records, root)
	}
	return settled, nil
}

// StubRecordsCheck remembers the stub records and plans whose pass of
// checkStubRecords is settled, so that a session, whose plan comes
// resolved and changes only with a permission profile switch, resolves
// their paths once rather than on every sandboxed run. A refusal, and a
// pass that is not settled (records reached through a link, or kept in a
// read-only subpath of a root), are checked again on each run. The zero
// value is ready; it is safe for concurrent use.
type StubRecordsCheck struct {
	mu     sync.Mutex
	passed map[string]bool
}

// maxRememberedPlans bounds what a StubRecordsCheck keeps: a session has
// one plan per profile it switched to, so reaching it only costs checking
// again.
const maxRememberedPlans = 32

// check is checkStubRecords, once per records path and plan roots.
func (c *StubRecordsCheck) check(records string, plan events.SandboxPlan) error {
	if c == nil {
		return checkStubRecords(records, plan)
	}
	key := records + "\x00" + strings.Join(plan.WritableRoots, "\x00") + "\x00\x00" + strings.Join(plan.ReadOnlySubpaths, "\x00")
	c.mu.Lock()
	ok := c.passed[key]
	c.mu.Unlock()
	if ok {
		return nil
	}
	settled, err := checkStubRecordsSettled(records, plan)
	if err != nil || !settled {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.passed == nil || len(c.passed) >= maxRememberedPlans {
		c.passed = map[string]bool{}
	}
	c.passed[key] = true
	return nil
}
