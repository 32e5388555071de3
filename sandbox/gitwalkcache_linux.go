package sandbox

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// GitWalkCache keeps the walk for git directories below a session's
// writable roots (gitdirs.go) between runs. The walk reads up to
// gitScanMaxEntries directory entries on every sandboxed call; with /tmp
// as a root on a busy machine that is 20 to 30 ms, most of a call's start.
//
// A kept walk is used again only while nothing it depends on has changed,
// so that a call never gets fewer protected git directories than a fresh
// walk would have given it at the same point:
//
//   - every directory the walk read is watched with inotify from before it
//     was read, so an entry made there later is an event. The walk is done
//     again when a ".git" entry the walk did not find, or a directory (a
//     new subtree, or an unreadable directory made readable), was created,
//     moved in or changed in such a directory and still exists, and when
//     the event queue overflowed. One that is gone again when the next
//     call looks (a placeholder .git docket made and removed for the last
//     call, a build's temporary directory) changes nothing: if it comes
//     back, that is a new event;
//   - each root must still be the directory (device and inode) it was;
//   - docket's mount table must not have changed (a mount can put a
//     repository where the walk saw none; /proc/self/mountinfo polls
//     POLLPRI then);
//   - the roots and their order must be the same (a plan change walks
//     again).
//
// Only the list of .git entries below the roots is kept: the repositories
// around and above the roots and where each .git points are looked at
// again on every call. When the kernel refuses a watch (the
// fs.inotify.max_user_watches limit) the walk is used for that call only.
// A walk cut short at its bounds stays cut short ("gitdirs:partial"): the
// directories it read are watched, the ones it did not reach are as
// unprotected as in a fresh walk that stopped there.
//
// The zero value is ready; Close releases the watches. Safe for
// concurrent use: concurrent calls wait for one walk.
type GitWalkCache struct {
	mu       sync.Mutex
	key      string
	roots    []fileID // identity of each root of the walk order, when walked
	found    []string // .git entries in walk order
	complete bool
	ino      int              // inotify descriptor, valid when kept
	dirs     map[int32]string // watched directory by watch descriptor
	mounts   *os.File         // /proc/self/mountinfo, opened before the walk
	kept     bool             // whether found may be used again
	walks    int              // walks done (for tests)
}

// fileID is a directory's identity.
type fileID struct{ dev, ino uint64 }

// gitWatchMask are the inotify events that can make a kept walk stale
// (see GitWalkCache); IN_ONLYDIR refuses anything but a directory.
const gitWatchMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_ATTRIB | unix.IN_ONLYDIR

// maxEventReads bounds how many reads of queued events one check does; a
// queue still not empty then counts as a change.
const maxEventReads = 256

// Close drops the kept walk and its watches.
func (c *GitWalkCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop()
	return nil
}

// drop forgets the kept walk and closes its descriptors.
func (c *GitWalkCache) drop() {
	if c.kept {
		_ = unix.Close(c.ino) // an inotify descriptor: closing removes its watches; nothing to flush
	}
	if c.mounts != nil {
		_ = c.mounts.Close() // read-only: nothing to flush
	}
	c.kept, c.mounts, c.found, c.roots, c.key, c.dirs = false, nil, nil, nil, "", nil
}

// walk returns the .git entries below roots in walk order and whether the
// walk was complete, from the kept walk when it is still valid.
func (c *GitWalkCache) walk(order, roots []string) ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := strings.Join(order, "\x00") + "\x01" + strings.Join(roots, "\x00")
	if c.kept && c.key == key && c.unchanged(order) {
		return c.found, c.complete
	}
	c.drop()
	c.walks++
	// Everything that can report a change is in place before the walk
	// looks, so a change during the walk is seen at the next check.
	keep := true
	ino, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		keep = false
	}
	mounts, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		keep = false
	}
	ids, ok := rootIDs(order)
	keep = keep && ok
	var watch func(dir string, fd int)
	dirs := map[int32]string{}
	if keep {
		watch = func(dir string, fd int) {
			if !keep {
				return
			}
			wd, err := unix.InotifyAddWatch(ino, "/proc/self/fd/"+strconv.Itoa(fd), gitWatchMask)
			if err != nil {
				keep = false
				return
			}
			dirs[int32(wd)] = dir
		}
	}
	var found []string
	complete := walkWatched(order, roots, func(p string, target bool) {
		if !target {
			found = append(found, p)
		}
	}, watch, gitScanMaxEntries, time.Now().Add(gitScanMaxTime))
	if !keep {
		if ino >= 0 {
			_ = unix.Close(ino) // an inotify descriptor: nothing to flush
		}
		if mounts != nil {
			_ = mounts.Close() // read-only: nothing to flush
		}
		return found, complete
	}
	c.key, c.roots, c.found, c.complete, c.ino, c.mounts, c.dirs, c.kept = key, ids, found, complete, ino, mounts, dirs, true
	return found, complete
}

// rootIDs returns the identity of each root; false when one is missing.
func rootIDs(order []string) ([]fileID, bool) {
	ids := make([]fileID, 0, len(order))
	for _, r := range order {
		var st unix.Stat_t
		if unix.Stat(r, &st) != nil {
			return nil, false
		}
		ids = append(ids, fileID{dev: st.Dev, ino: st.Ino})
	}
	return ids, true
}

// unchanged checks the kept walk against the roots, the mount table and
// the queued events (see GitWalkCache).
func (c *GitWalkCache) unchanged(order []string) bool {
	ids, ok := rootIDs(order)
	if !ok || len(ids) != len(c.roots) {
		return false
	}
	for i := range ids {
		if ids[i] != c.roots[i] {
			return false
		}
	}
	fds := []unix.PollFd{{Fd: int32(c.mounts.Fd()), Events: unix.POLLPRI}}
	for {
		_, err := unix.Poll(fds, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || fds[0].Revents&(unix.POLLERR|unix.POLLPRI|unix.POLLNVAL) != 0 {
			return false
		}
		break
	}
	return c.eventsHarmless()
}

// eventsHarmless reads every queued event and reports whether none of them
// can change what the walk finds.
func (c *GitWalkCache) eventsHarmless() bool {
	buf := make([]byte, 64<<10)
	for range maxEventReads {
		n, err := unix.Read(c.ino, buf)
		if errors.Is(err, unix.EAGAIN) {
			return true
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			return false
		}
		if !c.harmless(buf[:n]) {
			return false
		}
	}
	return false
}

// harmless reports whether none of the inotify events in b can change the
// walk: files other than ".git" created, moved in or changed; attributes
// of a watched directory itself changed; a .git the walk found changed (its
// targets are read on every call); a .git or a directory made that is gone
// again; watches removed with their directory.
func (c *GitWalkCache) harmless(b []byte) bool {
	for off := 0; off+unix.SizeofInotifyEvent <= len(b); {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[off]))
		name := b[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		off += unix.SizeofInotifyEvent + int(ev.Len)
		if ev.Mask&(unix.IN_Q_OVERFLOW|unix.IN_UNMOUNT) != 0 {
			return false
		}
		if len(name) == 0 || (string(name) != ".git" && ev.Mask&unix.IN_ISDIR == 0) {
			continue
		}
		dir, ok := c.dirs[ev.Wd]
		if !ok {
			return false
		}
		p := filepath.Join(dir, string(name))
		if string(name) == ".git" && slices.Contains(c.found, p) {
			continue
		}
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			return false
		}
	}
	return true
}
