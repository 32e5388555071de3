package confine

import (
	"errors"
	"fmt"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"golang.org/x/sys/unix"
)

// hidePaths covers each hidden path in the mount namespace: an empty
// read-only tmpfs over a directory, /dev/null (read-only) over anything
// else. A mount sits on the path's inode's place in the tree, so a symlink,
// /proc/self/root or /proc/PID/cwd, or a rename of a parent (the mount moves
// with it) all lead to the cover. A path gone since the plan is skipped
// outside the writable roots (nothing inside can make it) and refused under
// them; a file that gained another hard link since is refused.
func hidePaths(spec proto.Spec) error {
	for _, p := range spec.Hidden {
		var st unix.Stat_t
		err := unix.Stat(p, &st)
		if errors.Is(err, unix.ENOENT) {
			if events.WithinAny(p, spec.Writable) {
				return fmt.Errorf("hidden path %s vanished under a writable root: it cannot be kept hidden", p)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("hidden path %s: %w", p, err)
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if err := unix.Mount("docket-hidden", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=555"); err != nil {
				return fmt.Errorf("hiding %s: %w", p, err)
			}
			continue
		}
		if st.Nlink > 1 {
			return fmt.Errorf("hidden path %s has %d hard links: another name would still read it", p, st.Nlink)
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, "/dev/null", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			return fmt.Errorf("hiding %s: open_tree /dev/null: %w", p, err)
		}
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOEXEC | unix.MOUNT_ATTR_NOSUID}
		err = unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH, &attr)
		if err == nil {
			err = unix.MoveMount(fd, "", unix.AT_FDCWD, p, unix.MOVE_MOUNT_F_EMPTY_PATH)
		}
		_ = unix.Close(fd) // a mount/O_PATH fd: nothing to flush, and Linux frees the fd even when close fails
		if err != nil {
			return fmt.Errorf("hiding %s: %w", p, err)
		}
	}
	return nil
}
