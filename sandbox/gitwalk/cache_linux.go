package gitwalk

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

	"github.com/docket-engine/docket/sandbox/internal/mounttable"
)

// Cache keeps the walk for git directories below a session's
// writable roots (see Find) between runs. The walk reads up to
// MaxEntries directory entries on every sandboxed call; with /tmp
// as a root on a busy machine that is 20 to 30 ms, most of a call's start.
//
// A kept walk is used again only while nothing it depends on has changed,
// so that a call never gets fewer protected git directories than a fresh
// walk would have given it at the same point:
//
//   - every directory the walk read is watched with inotify from before it
//     was read, so an entry made there later is an event. A ".git" made or
//     moved into such a directory is added to the kept list; a directory
//     made there, or whose attributes changed (it may have been unreadable),
//     is walked (watched the same way) and what it holds added; a directory
//     moved in (its watched subdirectories would keep their old paths), an
//     overflowed event queue, or an unmounted directory make the whole walk
//     be done again. An entry that is gone again when the next call looks
//     (a stub .git docket made and removed for the last call, a
//     build's temporary directory) changes nothing: if it comes back, that
//     is a new event;
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
// directories it read are watched, and the ones it did not look into are
// kept as unseen and bound read-only for every call that uses the kept
// walk, as for a fresh walk that stopped there, until a directory is
// removed or moved out of a watched one (the walk is then done again, and
// may reach further). An overflowed event queue makes the whole walk be
// done again, under the same rule.
//
// The zero value is ready; Close releases the watches. Safe for
// concurrent use: concurrent calls wait for one walk.
type Cache struct {
	mu       sync.Mutex
	key      string
	roots    []fileID // identity of each root of the walk order, when walked
	found    []string // .git entries in walk order
	unseen   []string // directories the walk did not look into
	complete bool
	ino      int              // inotify descriptor, valid when kept
	dirs     map[int32]string // watched directory by watch descriptor
	lost     bool             // a watch could not be added: keep nothing
	mounts   *os.File         // /proc/self/mountinfo, opened before the walk
	kept     bool             // whether found may be used again
	walks    int              // walks done (for tests)
}

// fileID is a directory's identity.
type fileID struct{ dev, ino uint64 }

// gitWatchMask are the inotify events that can make a kept walk stale
// (see Cache); IN_ONLYDIR refuses anything but a directory. A directory
// removed or moved away matters only to a walk cut short, which may now
// reach further (see apply).
const gitWatchMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_ATTRIB | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_ONLYDIR

// maxEventReads bounds how many reads of queued events one check does; a
// queue still not empty then counts as a change.
const maxEventReads = 256

// Close drops the kept walk and its watches.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(false)
	return nil
}

// drop forgets the kept walk and closes its descriptors; in the
// background when async, since closing an inotify descriptor with
// thousands of watches waits for the kernel to free each (tens of ms).
func (c *Cache) drop(async bool) {
	if c.kept {
		ino := c.ino
		closeIno := func() { _ = unix.Close(ino) } // an inotify descriptor: closing removes its watches; nothing to flush
		if async {
			go closeIno()
		} else {
			closeIno()
		}
	}
	if c.mounts != nil {
		_ = c.mounts.Close() // read-only: nothing to flush
	}
	c.kept, c.mounts, c.found, c.unseen, c.roots, c.key, c.dirs = false, nil, nil, nil, nil, "", nil
}

// walk returns the .git entries below roots in walk order, the
// directories the walk did not look into and whether the walk was
// complete, from the kept walk when it is still valid.
func (c *Cache) walk(order, roots []string) (found, unseen []string, complete bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := strings.Join(order, "\x00") + "\x01" + strings.Join(roots, "\x00")
	if c.kept && c.key == key && c.update(order, roots) {
		return slices.Clone(c.found), slices.Clone(c.unseen), c.complete
	}
	c.drop(true)
	c.walks++
	// Everything that can report a change is in place before the walk
	// looks, so a change during the walk is seen at the next check.
	ino, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	mounts, merr := mounttable.Open()
	ids, ok := rootIDs(order)
	c.ino, c.dirs, c.lost = ino, map[int32]string{}, err != nil || merr != nil || !ok
	unseen, complete = walkWatched(order, roots, func(p string, target bool) {
		if !target {
			found = append(found, p)
		}
	}, c.watch, MaxEntries, time.Now().Add(MaxTime))
	if c.lost {
		if err == nil {
			_ = unix.Close(ino) // an inotify descriptor: nothing to flush
		}
		if merr == nil {
			_ = mounts.Close() // read-only: nothing to flush
		}
		c.dirs = nil
		return found, unseen, complete
	}
	c.key, c.roots, c.found, c.unseen, c.complete, c.mounts, c.kept = key, ids, found, unseen, complete, mounts, true
	return slices.Clone(found), slices.Clone(unseen), complete
}

// watch adds an inotify watch on the directory open at fd (its path dir),
// before the walk reads it.
func (c *Cache) watch(dir string, fd int) {
	if c.lost {
		return
	}
	wd, err := unix.InotifyAddWatch(c.ino, "/proc/self/fd/"+strconv.Itoa(fd), gitWatchMask)
	if err != nil {
		c.lost = true
		return
	}
	c.dirs[int32(wd)] = dir
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

// update checks the kept walk against the roots and the mount table and
// applies the queued events to it (see Cache); false means the
// whole walk must be done again.
func (c *Cache) update(order, roots []string) bool {
	ids, ok := rootIDs(order)
	if !ok || !slices.Equal(ids, c.roots) {
		return false
	}
	if mounttable.Changed(c.mounts) {
		return false
	}
	buf := make([]byte, 64<<10)
	for range maxEventReads {
		n, err := unix.Read(c.ino, buf)
		if errors.Is(err, unix.EAGAIN) {
			return true
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 || !c.apply(buf[:n], roots) {
			return false
		}
	}
	return false
}

// apply brings the kept walk up to date with the inotify events in b;
// false means it cannot and the whole walk must be done again.
func (c *Cache) apply(b []byte, roots []string) bool {
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
		if ev.Mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0 {
			// A walk cut short keeps what it did not see read-only; once
			// a directory is gone (a build's tree, a fill removed), a new
			// walk may see all, so that the rest of a session does not
			// stay read-only for nothing. A complete walk loses nothing.
			if !c.complete && ev.Mask&unix.IN_ISDIR != 0 {
				return false
			}
			continue
		}
		// Files other than .git, and a watched directory's own attributes
		// (no name: it was read already), change nothing.
		if len(name) == 0 || (string(name) != ".git" && ev.Mask&unix.IN_ISDIR == 0) {
			continue
		}
		dir, ok := c.dirs[ev.Wd]
		if !ok {
			return false
		}
		p := filepath.Join(dir, string(name))
		if string(name) == ".git" && slices.Contains(c.found, p) {
			continue // where it points is read on every call
		}
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			continue // gone again: if it comes back, that is a new event
		}
		switch {
		case string(name) == ".git":
			// The walk never looks into a .git, so no watch is below it.
			c.found = append(c.found, p)
		case ev.Mask&unix.IN_MOVED_TO != 0:
			return false
		default:
			// A new directory (no watch below it yet), or one that may
			// have been unreadable: walk it like the walk would have.
			unseen, complete := walkWatched([]string{p}, roots, func(q string, target bool) {
				if !target && !slices.Contains(c.found, q) {
					c.found = append(c.found, q)
				}
			}, c.watch, MaxEntries, time.Now().Add(MaxTime))
			if c.lost {
				return false
			}
			// p is looked at now (one unreadable before may be readable):
			// what is unseen below it is what this walk left.
			c.unseen = append(slices.DeleteFunc(c.unseen, func(u string) bool { return within(u, p) }), unseen...)
			c.complete = c.complete && complete
		}
	}
	return true
}

// Walks reports how many whole walks the cache has done: a kept walk used
// again, or brought up to date from its events, is not one.
func (c *Cache) Walks() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.walks
}
