package confine

import (
	"errors"
	"fmt"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"golang.org/x/sys/unix"
)

// BindUnseen makes each directory the git walk did not look into
// (spec.Unseen) read-only, with everything below it, in the mount
// namespace being set up: no part of a writable root is writable unless
// the walk looked at it. A writable root nested below such a directory
// (a workspace in /tmp when /tmp's walk was cut short) was walked on its
// own, so it is put back writable on top: a copy of its mount tree, taken
// before the directory around it went read-only. An unseen directory gone
// since has nothing of anybody's to protect.
func BindUnseen(spec proto.Spec) error {
	roots := sortedRoots(spec.Writable)
	for _, u := range spec.Unseen {
		var inner []string
		for _, r := range roots {
			if r != u && events.Within(r, u) && !events.WithinAny(r, inner) {
				inner = append(inner, r)
			}
		}
		copies := make([]int, 0, len(inner))
		closeCopies := func() {
			for _, fd := range copies {
				_ = unix.Close(fd) // a mount fd: nothing to flush, and Linux frees the fd even when close fails
			}
		}
		for _, r := range inner {
			fd, err := cloneTree(r)
			if err != nil {
				closeCopies()
				return fmt.Errorf("keeping root %s writable below %s: %w", r, u, err)
			}
			copies = append(copies, fd)
		}
		err := BindReadOnly(u)
		if errors.Is(err, unix.ENOENT) {
			closeCopies()
			continue
		}
		if err != nil {
			closeCopies()
			return fmt.Errorf("making %s read-only (the git walk did not look into it): %w", u, err)
		}
		for i, r := range inner {
			if err := unix.MoveMount(copies[i], "", unix.AT_FDCWD, r, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
				closeCopies()
				return fmt.Errorf("keeping root %s writable below %s: %w", r, u, err)
			}
		}
		closeCopies()
	}
	return nil
}
