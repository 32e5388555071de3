package sandbox

import (
	"os"
	"sync"
)

// Placeholders keeps placeholders and their locks between runs, so that a
// session creates each once rather than once per call (creating and
// removing a directory is a journaled metadata update on most file systems).
// The zero value is ready; Close releases them, removing those no other run
// or process holds. Safe for concurrent use. Library API: the engine does
// not keep one per session yet (each call holds and releases its own), so
// deadcode lists Close as unreachable from the binaries.
type Placeholders struct {
	mu   sync.Mutex
	held map[string]heldPath // by protected path as the plan gives it
}

// Close releases every placeholder, removing those no other run holds.
func (ph *Placeholders) Close() error {
	ph.mu.Lock()
	defer ph.mu.Unlock()
	for p, h := range ph.held {
		if h.f != nil {
			releasePlaceholder(h)
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
	// records is the directory where placeholders are recorded ("" for
	// none): where a run that did not make a directory looks for the
	// record of the docket run that did.
	records string
	// ownRecord is whether the directory's record is a file of its path's
	// (recordPlaceholder), to drop when it is removed.
	ownRecord bool
}
