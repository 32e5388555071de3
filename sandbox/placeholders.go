package sandbox

import (
	"os"
	"sync"
)

// Placeholders keeps placeholders and their locks between runs, so that a
// session creates each once rather than once per call (creating and
// removing a directory is a journaled metadata update on most file systems).
// The zero value is ready. Safe for concurrent use. Neither binary sets
// Request.Placeholders yet; the tests release them with Close, which lives
// in placeholders_close_test.go until a caller needs it.
type Placeholders struct {
	mu   sync.Mutex
	held map[string]heldPath // by protected path as the plan gives it
}

// heldPath is a protected path this run holds a lock on.
type heldPath struct {
	path string
	f    *os.File
}
