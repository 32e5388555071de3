package main

import (
	"errors"
	"fmt"
)

// closing runs a deferred close and reports its error instead of dropping
// it: on its own when the command succeeded, or joined to the command's own
// error, keeping that error's exit code. A journal's Close commits what is
// still buffered, so its error means lost records and must reach the user.
func closing(err *error, what string, close func() error) {
	cerr := close()
	if cerr == nil {
		return
	}
	cerr = fmt.Errorf("close %s: %w", what, cerr)
	var ee *exitError
	switch {
	case *err == nil:
		*err = cerr
	case errors.As(*err, &ee):
		*err = &exitError{code: ee.code, err: errors.Join(ee.err, cerr)}
	default:
		*err = errors.Join(*err, cerr)
	}
}
