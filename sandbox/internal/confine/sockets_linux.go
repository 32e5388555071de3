package confine

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// CoverSockets binds a read-only /dev/null over every path in paths that is
// a socket in this mount namespace: connect(2) on it then fails with
// ECONNREFUSED, and, being a mount point, it cannot be renamed or unlinked
// to reach or replace the socket. A path that is gone or is no longer a
// socket is skipped.
func CoverSockets(paths []string) error {
	for _, p := range paths {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
			continue
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, "/dev/null", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			return fmt.Errorf("covering unix socket %s: open_tree /dev/null: %w", p, err)
		}
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOEXEC | unix.MOUNT_ATTR_NOSUID}
		err = unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH, &attr)
		if err == nil {
			err = unix.MoveMount(fd, "", unix.AT_FDCWD, p, unix.MOVE_MOUNT_F_EMPTY_PATH)
		}
		_ = unix.Close(fd) // a mount/O_PATH fd: nothing to flush, and Linux frees the fd even when close fails
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return fmt.Errorf("covering unix socket %s: %w", p, err)
		}
	}
	return nil
}
