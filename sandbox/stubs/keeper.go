// Package stubs makes, holds, records and removes the empty read-only
// directories (stubs) docket puts where a protected path is missing: a
// .git, .docket, .agents or .codex under a writable root, a .git above one, the
// lean helper's name beside docket's binary. A mount needs a mount point,
// and Landlock cannot refuse the creation of one name in a writable
// directory, so the sandbox binds a stub read-only for the call.
//
// Docket only ever removes a stub it made and knows it made: this run's
// mkdir made it, or docket's mark on the directory (set before it is
// bound read-only) or a record under the records directory (which no
// sandboxed command can write) names that very directory. An empty 0555
// directory is no proof: the user, or a command, can make one.
package stubs

import (
	"os"
	"sync"
)

// Keeper keeps stubs and their locks between runs, so that a session
// creates each once rather than once per call (creating and
// removing a directory is a journaled metadata update on most file systems).
// The zero value is ready; Close releases them, removing those no other run
// or process holds. Safe for concurrent use. A session keeps one for the
// stubs of its shared temporary roots only (/tmp, $TMPDIR:
// sandbox.Request.StubsIn); a workspace's stubs are held per call.
type Keeper struct {
	mu   sync.Mutex
	held map[string]heldPath // by protected path as the plan gives it
}

// Close releases every stub, removing those no other run holds.
func (ph *Keeper) Close() error {
	ph.mu.Lock()
	defer ph.mu.Unlock()
	for p, h := range ph.held {
		if h.f != nil {
			releaseStub(h)
		}
		delete(ph.held, p)
	}
	return nil
}

// heldPath is a protected path this run holds a lock on.
type heldPath struct {
	path string
	f    *os.File
	// made is whether this run made the directory: only a directory docket
	// made may ever be removed, and an empty 0555 directory is no proof
	// (the user, or a command, can make one at a protected name).
	made bool
	// records is the directory where stubs are recorded ("" for
	// none): where a run that did not make a directory looks for the
	// record of the docket run that did.
	records string
	// ownRecord is whether the directory's record is a file of its path's
	// (recordStub), to drop when it is removed.
	ownRecord bool
}
