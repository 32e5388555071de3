package confine

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
	"golang.org/x/sys/unix"
)

// SetupMounts shapes the helper's private mount table: every mount
// read-only except fresh read-write copies of the writable roots (each root
// its own mount, nested ones too, so that none can be renamed away and
// replanted), the protected subpaths bound read-only on top, the host's
// unix sockets covered (network off), a private devpts for ptys, and a
// /proc for the new PID namespace. Making the whole tree read-only in the
// mount table (not only in Landlock) also stops what Landlock does not
// cover outside the roots: chmod, chown, utimes and extended attributes.
// It returns the optional layers it set up (layers.Devpts, layers.UnixSockets,
// the git directory layer).
func SetupMounts(spec proto.Spec) ([]string, error) {
	// Nothing done here may propagate back to the host's mount table.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("making / private: %w", err)
	}
	roots := sortedRoots(spec.Writable)
	// Detached read-write copies of the roots, taken before the tree
	// goes read-only.
	copies := make(map[string]int, len(roots))
	defer func() {
		for _, fd := range copies {
			_ = unix.Close(fd) // a mount/O_PATH fd: nothing to flush, and Linux frees the fd even when close fails
		}
	}()
	for _, r := range roots {
		if r == "/" {
			continue
		}
		fd, err := cloneTree(r)
		if err != nil {
			return nil, pathError(err)
		}
		copies[r] = fd
		// No device nodes and no set-uid programs from the workspace.
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOSUID}
		if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
			return nil, fmt.Errorf("mount_setattr %s: %w", r, err)
		}
	}
	if !slices.Contains(roots, "/") {
		if err := setReadOnly(unix.AT_FDCWD, "/", 0); err != nil {
			return nil, fmt.Errorf("making / read-only: %w", err)
		}
	}
	// Outer roots first (sorted order puts a parent before its children),
	// so that a nested root lands on the outer root's copy. Every directory
	// between a nested root and the root around it becomes a mount point
	// as well: rename(2) refuses to move a mount point (EBUSY) but happily
	// moves a directory with a mount somewhere below it.
	pinned := map[string]bool{}
	for _, r := range roots {
		if r == "/" {
			continue
		}
		if outer := enclosingRoot(r, roots); outer != "" {
			for _, a := range between(outer, r) {
				if pinned[a] {
					continue
				}
				if err := selfBind(a); err != nil {
					return nil, &PathSetupError{fmt.Errorf("pinning %s: %w", a, err)}
				}
				pinned[a] = true
			}
		}
		if err := unix.MoveMount(copies[r], "", unix.AT_FDCWD, r, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return nil, pathError(fmt.Errorf("mounting writable root %s: %w", r, err))
		}
	}
	if err := BindUnseen(spec); err != nil {
		return nil, &PathSetupError{err}
	}
	for _, p := range spec.Protected {
		err := BindReadOnly(p)
		if errors.Is(err, unix.ENOENT) && slices.Contains(spec.Scanned, p) {
			continue
		}
		if err != nil {
			return nil, &PathSetupError{fmt.Errorf("protecting %s: %w", p, err)}
		}
	}
	if err := protectBinaries(spec); err != nil {
		return nil, &PathSetupError{err}
	}
	var enforced []string
	if len(spec.Hidden) > 0 {
		if err := hidePaths(spec); err != nil {
			return nil, &PathSetupError{err}
		}
		enforced = append(enforced, layers.Hidden)
	}
	if spec.GitScan != "" {
		enforced = append(enforced, proto.GitDirsLayer(spec.GitScan))
	}
	if !spec.Network {
		if err := CoverSockets(spec.UnixSockets); err != nil {
			return nil, &PathSetupError{err}
		}
		if spec.UnixSocketsPartial {
			enforced = append(enforced, layers.UnixSockets+":partial")
		} else {
			enforced = append(enforced, layers.UnixSockets)
		}
	}
	if spec.NS.PID {
		// A /proc for the new PID namespace, so that /proc/$$ is the
		// shell's own entry; the host's processes are not listed.
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return nil, fmt.Errorf("mounting /proc: %w", err)
		}
	}
	ok, err := MountPrivateDevpts()
	if err != nil {
		return nil, err
	}
	if ok {
		enforced = append(enforced, layers.Devpts)
	}
	return enforced, nil
}

// PathSetupError is a mount step that failed on a path after the mount
// namespace itself worked. Paths can be changed by other processes
// (including other sandboxed commands running in parallel), so such a
// failure must never buy a weaker namespace setup: it fails the call
// (proto.LayerProtectedPaths), while only a refused mount namespace (layers.MountNS)
// may fall back.
type PathSetupError struct{ err error }

func (e *PathSetupError) Error() string { return e.err.Error() }
func (e *PathSetupError) Unwrap() error { return e.err }

// pathError marks err as a PathSetupError when it says a path is missing
// or not what it was (a writable root removed or replaced since the plan),
// and leaves it as a mount namespace failure otherwise.
func pathError(err error) error {
	for _, e := range []error{unix.ENOENT, unix.ENOTDIR, unix.ELOOP} {
		if errors.Is(err, e) {
			return &PathSetupError{err}
		}
	}
	return err
}

// cloneTree returns a detached copy of the mount tree at path.
func cloneTree(path string) (int, error) {
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return -1, fmt.Errorf("open_tree %s: %w", path, err)
	}
	return fd, nil
}

// selfBind makes path a mount point of its own, with the same attributes.
func selfBind(path string) error {
	fd, err := cloneTree(path)
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(fd) }() // a mount/O_PATH fd: nothing to flush, and Linux frees the fd even when close fails
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount: %w", err)
	}
	return nil
}

// BindReadOnly puts a read-only copy of path (and everything mounted under
// it) on top of path.
func BindReadOnly(path string) error {
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return fmt.Errorf("open_tree: %w", err)
	}
	defer func() { _ = unix.Close(fd) }() // a mount/O_PATH fd: nothing to flush, and Linux frees the fd even when close fails
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

// sortedRoots returns the roots sorted and deduplicated; a parent sorts
// before everything below it.
func sortedRoots(roots []string) []string {
	s := append([]string(nil), roots...)
	sort.Strings(s)
	out := s[:0]
	for i, r := range s {
		if i == 0 || r != s[i-1] {
			out = append(out, r)
		}
	}
	return out
}

// enclosingRoot returns the innermost root other than r that contains r,
// or "".
func enclosingRoot(r string, roots []string) string {
	best := ""
	for _, o := range roots {
		if o != r && events.Within(r, o) && len(o) > len(best) {
			best = o
		}
	}
	return best
}

// between lists the directories strictly between outer and inner (both
// clean, inner below outer), outermost first.
func between(outer, inner string) []string {
	var out []string
	for d := filepath.Dir(inner); d != outer && events.Within(d, outer) && d != "/"; d = filepath.Dir(d) {
		out = append([]string{d}, out...)
	}
	return out
}
