package journal

import (
	"fmt"
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
			err = fmt.Errorf("damaged file: %v", r)
		}
	}()
	return f()
}
