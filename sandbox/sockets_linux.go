package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// maxCoveredSockets bounds the socket paths passed to the helper (they
// travel in its argv, whose strings the kernel caps at 128 KiB each).
const maxCoveredSockets = 2048

// boundUnixSockets returns the distinct absolute paths of the unix sockets
// bound in this process's network namespace (/proc/net/unix), and whether
// the list is complete. Abstract sockets (shown with '@') are Landlock's
// scope's business; relative paths cannot be placed and are left out (see
// docs/sandbox.md, residual risks).
func boundUnixSockets() ([]string, bool, error) {
	b, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		return nil, false, fmt.Errorf("reading /proc/net/unix: %w", err)
	}
	return parseProcNetUnix(b)
}

// parseProcNetUnix parses /proc/net/unix: a header line, then
// "Num RefCount Protocol Flags Type St Inode [Path]" per socket.
func parseProcNetUnix(b []byte) ([]string, bool, error) {
	seen := map[string]bool{}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		line := sc.Bytes()
		// Skip the seven fixed fields; the path is the rest of the line.
		rest := line
		for i := 0; i < 7; i++ {
			rest = bytes.TrimLeft(rest, " ")
			j := bytes.IndexByte(rest, ' ')
			if j < 0 {
				rest = nil
				break
			}
			rest = rest[j:]
		}
		path := string(bytes.TrimSpace(rest))
		if len(path) == 0 || path[0] != '/' || seen[path] {
			continue
		}
		if len(out) == maxCoveredSockets {
			return out, false, nil
		}
		seen[path] = true
		out = append(out, path)
	}
	if err := sc.Err(); err != nil {
		return out, false, fmt.Errorf("reading /proc/net/unix: %w", err)
	}
	return out, true, nil
}

// coverSockets binds a read-only /dev/null over every path in paths that is
// a socket in this mount namespace: connect(2) on it then fails with
// ECONNREFUSED, and, being a mount point, it cannot be renamed or unlinked
// to reach or replace the socket. A path that is gone or is no longer a
// socket is skipped.
func coverSockets(paths []string) error {
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
