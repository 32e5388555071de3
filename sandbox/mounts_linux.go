package sandbox

import (
	"errors"
	"fmt"
	"sort"

	"golang.org/x/sys/unix"
)

// setupMounts shapes the helper's private mount table: every mount
// read-only except fresh read-write copies of the writable roots, the
// protected subpaths bound read-only on top, and a /proc for the new PID
// namespace. Making the whole tree read-only in the mount table (not only
// in Landlock) also stops what Landlock does not cover outside the roots:
// chmod, chown, utimes and extended attributes.
func setupMounts(spec helperSpec) error {
	// Nothing done here may propagate back to the host's mount table.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making / private: %w", err)
	}
	roots := outermost(spec.Writable)
	// Detached read-write copies of the roots, taken before the tree
	// goes read-only.
	copies := make([]int, 0, len(roots))
	defer func() {
		for _, fd := range copies {
			unix.Close(fd)
		}
	}()
	for _, r := range roots {
		if r == "/" {
			continue
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, r, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("open_tree %s: %w", r, err)
		}
		copies = append(copies, fd)
		// No device nodes and no set-uid programs from the workspace.
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOSUID}
		if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
			return fmt.Errorf("mount_setattr %s: %w", r, err)
		}
	}
	if !contains(roots, "/") {
		if err := setReadOnly(unix.AT_FDCWD, "/", 0); err != nil {
			return fmt.Errorf("making / read-only: %w", err)
		}
	}
	i := 0
	for _, r := range roots {
		if r == "/" {
			continue
		}
		if err := unix.MoveMount(copies[i], "", unix.AT_FDCWD, r, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("mounting writable root %s: %w", r, err)
		}
		i++
	}
	for _, p := range spec.Protected {
		if err := bindReadOnly(p); err != nil {
			return fmt.Errorf("protecting %s: %w", p, err)
		}
	}
	if spec.NS.PID {
		// A /proc for the new PID namespace, so that /proc/$$ is the
		// shell's own entry; the host's processes are not listed.
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("mounting /proc: %w", err)
		}
	}
	return nil
}

// bindReadOnly puts a read-only copy of path (and everything mounted under
// it) on top of path.
func bindReadOnly(path string) error {
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return fmt.Errorf("open_tree: %w", err)
	}
	defer unix.Close(fd)
	if err := setReadOnly(fd, "", unix.AT_EMPTY_PATH); err != nil {
		return err
	}
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount: %w", err)
	}
	return nil
}

// setReadOnly sets MOUNT_ATTR_RDONLY on a mount and everything below it,
// leaving the other (possibly locked) attributes as they are.
func setReadOnly(dirfd int, path string, flags uint) error {
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(dirfd, path, flags|unix.AT_RECURSIVE, &attr); err != nil {
		if errors.Is(err, unix.ENOSYS) {
			return fmt.Errorf("mount_setattr needs Linux 5.12+: %w", err)
		}
		return fmt.Errorf("mount_setattr: %w", err)
	}
	return nil
}

// outermost returns the roots sorted, without those nested in another
// root (their copy comes along with the outer one).
func outermost(roots []string) []string {
	s := append([]string(nil), roots...)
	sort.Strings(s)
	var out []string
	for _, r := range s {
		if !underAny(r, out) {
			out = append(out, r)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
