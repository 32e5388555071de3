package journal

import (
	"errors"
	"runtime/debug"
)

// guard runs f with memory faults turned into panics and panics turned into
// errors. bbolt reads through mmap: a truncated file faults (SIGBUS) and a
// damaged page can make it panic; neither may take the process down.
func guard(f func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			// The panic's own words ("runtime error: slice bounds out of
			// range") say where bbolt broke, not what is damaged.
			err = errors.New("damaged file: a page's structure is inconsistent, and the database library (bbolt) could not read it")
		}
	}()
	return f()
}
