package confine

import (
	"os"

	"golang.org/x/sys/unix"
)

// devptsOptions make a fresh instance whose ptmx anyone in the sandbox may
// open; the slaves are the opener's (mode 620, as on a normal system).
const devptsOptions = "newinstance,ptmxmode=0666,mode=620"

// MountPrivateDevpts mounts a new devpts instance on /dev/pts and makes
// /dev/ptmx open it. The host's ptys live in the host's instance, which the
// new mount covers, so no host terminal is reachable by name. It fails soft
// (false, nil) where there is no /dev/pts or the kernel refuses the mount:
// ptys then fail as before, and Landlock gets no pty rule, so the host's
// /dev/pts stays unwritable.
func MountPrivateDevpts() (bool, error) {
	if st, err := os.Lstat("/dev/pts"); err != nil || !st.IsDir() {
		return false, nil
	}
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, devptsOptions); err != nil {
		return false, nil
	}
	st, err := os.Lstat("/dev/ptmx")
	if err != nil || st.Mode()&os.ModeSymlink != 0 {
		// A missing /dev/ptmx or a link to pts/ptmx: nothing to redirect.
		return true, nil
	}
	// /dev/ptmx (5,2) would find "pts" next to itself anyway, but binding
	// the instance's own ptmx leaves no doubt which instance it opens.
	fd, err := unix.OpenTree(unix.AT_FDCWD, "/dev/pts/ptmx", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return true, nil
	}
	defer func() { _ = unix.Close(fd) }() // a mount/O_PATH fd: nothing to flush, and Linux frees the fd even when close fails
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, "/dev/ptmx", unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return true, nil
	}
	return true, nil
}
