//go:build !linux

package gitwalk

import "time"

// walk finds nothing where there is no Linux sandbox to bind what
// it would find, and says so: the walk is never complete, and every root
// is unseen.
func walk(order, roots []string, add func(p string, target bool), maxEntries int, deadline time.Time) ([]string, bool) {
	return append([]string(nil), order...), false
}
