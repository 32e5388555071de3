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
	// records is the directory where placeholders are recorded ("" for none).
	records string
}
