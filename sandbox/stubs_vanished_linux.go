package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/docket-engine/docket/sandbox/internal/proto"
)

// A stub docket holds can still vanish before the helper binds it. Dockets
// order themselves with the stub's flock (package stubs: the last holder
// out removes it), but /tmp is every program's: another sandbox's own
// stub-and-remove (Codex's, an older docket's), a cleaner of /tmp, or the
// user removes an empty directory without asking for docket's lock. When
// the helper then finds the path missing, nothing has run yet: the mount
// layout is built before the command exists. Holding again makes a fresh
// stub, which is exactly what the call would have had a moment later, so
// the call is launched again with the same spec. Protection is the same:
// the command never runs with a protected path unbound. The retries are
// bounded, so that a process removing the stub on every attempt makes the
// call fail as before rather than spin.

// maxStubRetries bounds the launches after a held stub vanished.
const maxStubRetries = 3

// stubVanishedError is a setup refused because a protected path docket held
// was gone when the helper came to bind it: the command never started.
type stubVanishedError struct {
	path string
	err  error
}

func (e *stubVanishedError) Error() string {
	return fmt.Sprintf("%v (the stub at %s vanished before it was bound)", e.err, e.path)
}

func (e *stubVanishedError) Unwrap() error { return e.err }

// vanishedStub returns a protected path this call held that is missing now
// in a directory that is still there, or "". Called with the stubs still held, so that a stub this call made is
// not yet removed by its own release. The walk's finds (Scanned) are never
// held: the helper skips those that vanished.
func vanishedStub(spec Spec) string {
	for _, p := range spec.Protected {
		if slices.Contains(spec.Scanned, p) {
			continue
		}
		// Only the stub itself: a parent gone (the writable root removed)
		// is no stub to make again, and fails the call as it did.
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		if st, err := os.Stat(filepath.Dir(p)); err == nil && st.IsDir() {
			return p
		}
	}
	return ""
}

// asStubVanished wraps err when a setup refused on the protected paths
// layer finds a held path gone: a launch the caller may repeat.
func asStubVanished(layer string, spec Spec, err error) error {
	if layer != proto.LayerProtectedPaths {
		return err
	}
	if p := vanishedStub(spec); p != "" {
		return &stubVanishedError{path: p, err: err}
	}
	return err
}
