package rules

import (
	"errors"
	"fmt"
)

// LoadError is a problem with one rules file. Line is 0 when the problem is
// not tied to a line (for example the file cannot be read).
type LoadError struct {
	File string
	Line int
	Col  int
	Msg  string
	Err  error
}

// Error renders file:line:col: message.
func (e *LoadError) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Unwrap returns the underlying cause, if any.
func (e *LoadError) Unwrap() error { return e.Err }

// ErrOverBroad is wrapped by amendment errors for prefixes that would allow
// too much.
var ErrOverBroad = errors.New("prefix would allow too much")

// OverBroadError names a refused amendment prefix.
type OverBroadError struct {
	Pattern []string
}

// Error names the refused prefix.
func (e *OverBroadError) Error() string {
	return fmt.Sprintf("refusing to save prefix rule %q: %v", e.Pattern, ErrOverBroad)
}

// Unwrap lets errors.Is(err, ErrOverBroad) match.
func (e *OverBroadError) Unwrap() error { return ErrOverBroad }
