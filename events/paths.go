package events

import "strings"

// Within reports whether the path p is root or lies below it. Both must be
// absolute and clean (as the journal stores them): the test is on path
// components, so /ab is not within /a, and every absolute path is within /.
// It is the one definition of "under a root" that the decision logic, the
// engine and the sandbox share, so a plan means the same to all three.
func Within(p, root string) bool {
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	// Compared in place rather than against root+"/": the kept walk
	// (sandbox/gitwalk) tests every path it did not see against every
	// directory an inotify event names, and the concatenation allocated
	// on each test (most of a session's call under a busy /tmp).
	return strings.HasPrefix(p, root) && (len(p) == len(root) || p[len(root)] == '/')
}

// WithinAny reports whether p is within one of roots.
func WithinAny(p string, roots []string) bool {
	for _, r := range roots {
		if Within(p, r) {
			return true
		}
	}
	return false
}
