package gitwalk

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/mounttable"
)

// Cache keeps the walk for git directories below a session's
// writable roots (see Find) between runs. The walk reads up to
// MaxEntries directory entries on every sandboxed call; with /tmp
// as a root on a busy machine that is 20 to 30 ms, most of a call's start.
//
// A kept walk is used again only while it can be brought up to date with
// what changed, looking only at what changed, so that every .git below
// the roots is either in the kept list or below a directory the kept walk
// did not look into (bound read-only), as for a fresh walk:
//
//   - every directory the walk read is watched with inotify from before it
//     was read, so an entry made there later is an event. A ".git" made or
//     moved into such a directory is added to the kept list (and one
//     removed is dropped from it); a directory made or moved there, or
//     whose attributes changed (it may have been unreadable), is walked
//     (watched the same way), what it holds added and what that walk did
//     not look into kept as unseen. A directory moved within the roots
//     keeps its watches, which walking it at its new place points at the
//     new paths; a watch the walk of the new place did not reach keeps
//     its old path, and lies below what that walk left unseen. An entry
//     that is gone again when the next call looks (a stub .git docket
//     made and removed for the last call, a build's temporary directory)
//     changes nothing: if it comes back, that is a new event;
//   - an overflowed event queue or an unmounted directory make the whole
//     walk be done again;
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
//
// A walk cut short at its bounds stays cut short ("gitdirs:partial"): the
// directories it read are watched, and the ones it did not look into are
// kept as unseen and bound read-only for every call that uses the kept
// walk, as for a fresh walk that stopped there. The kept walk counts the
// entries it read in each watched directory; when watched directories
// are removed (a build's tree, a fill taken away) their entries go back
// to the budget, and the next call walks on from the unseen directories
// with what was given back, so that a session does not stay read-only
// for nothing. Nothing is walked twice for it: a call never pays for
// walking a large shared /tmp again because something in it changed
// (issue 26; before, any directory removed under a cut walk walked
// everything again, and every sandboxed call removes its stubs).
//
// The zero value is ready; Close releases the watches. Safe for
// concurrent use: concurrent calls wait for one walk.
type Cache struct {
	mu       sync.Mutex
	key      string
	roots    []fileID // identity of each root of the walk order, when walked
	found    []string // .git entries in walk order
	unseen   []string // directories the walk did not look into
	coarse   []string // unseen as calls get it (coarsenUnseen), nil when to be made
	complete bool
	ino      int              // inotify descriptor, valid when kept
	dirs     map[int32]string // watched directory by watch descriptor
	entries  map[int32]int    // entries the walk read in each watched directory
	used     int              // their sum: the kept walk's share of MaxEntries
	freed    bool             // a watched directory went away since the last resume
	lost     bool             // a watch could not be added: keep nothing
	mounts   *os.File         // /proc/self/mountinfo, opened before the walk
	kept     bool             // whether found may be used again
	walks    int              // walks done (for tests)
	why      string           // why the last walk was done again (LastRewalk)
	lostWhy  string           // why the last walk could not be kept
	// budget is the entry bound of the kept walk, MaxEntries when 0
	// (tests make it small).
	budget int
	// walkUnseen is how many directories the last fresh walk left unseen
	// (about its budget at most): the kept list may grow to twice that,
	// or twice the budget, before the walk is done afresh (update).
	walkUnseen int
	// upd is the one budget and deadline of the update being applied
	// (update): every walk an update does shares them.
	upd updateBound
	// lastUpdate is what the last update walked (for tests: its work is
	// bounded whatever the number of events).
	lastUpdate updateWork
}

// updateBound is what one update may still spend walking: entries and
// time, shared by the walks of every new directory and the resume.
type updateBound struct {
	left     int
	deadline time.Time
	// skipped are the directories the update did not look into once its
	// bound was spent, added to the unseen list at its end (flushSkipped):
	// once each, rather than rewriting the list per directory.
	skipped []string
	// watched is the watched directories by path, made when first needed.
	watched map[string]bool
}

// updateWork is what one update of a kept walk did: the walks it started
// (one per new or changed directory, one to resume a walk cut short) and
// the directory entries they read, and how many directories it left
// unseen for want of budget or time.
type updateWork struct {
	Walks, Entries, Skipped int
}

// flushSkipped adds the directories the update skipped to the unseen
// list, each in place of what was unseen below it; one gone again since
// is left out (if it comes back, that is a new event).
func (c *Cache) flushSkipped() {
	if len(c.upd.skipped) == 0 {
		return
	}
	skip := make(map[string]bool, len(c.upd.skipped))
	var add []string
	for _, p := range c.upd.skipped {
		if _, err := os.Lstat(p); err == nil && !skip[p] {
			skip[p] = true
			add = append(add, p)
		}
	}
	below := func(u string) bool {
		for d := u; d != "/" && d != "."; d = filepath.Dir(d) {
			if skip[d] {
				return true
			}
		}
		return false
	}
	c.upd.skipped = nil
	c.setUnseen(append(slices.DeleteFunc(c.unseen, below), add...))
	c.complete = c.complete && len(c.unseen) == 0
}

// watchedAt reports whether a watch of the kept walk is on the directory
// at p by that path (a directory moved to p keeps its old one).
func (c *Cache) watchedAt(p string) bool {
	if c.upd.watched == nil {
		c.upd.watched = make(map[string]bool, len(c.dirs))
		for _, d := range c.dirs {
			c.upd.watched[d] = true
		}
	}
	return c.upd.watched[p]
}

// spent reports whether the update's budget or time is used up.
func (u *updateBound) spent() bool {
	return u.left <= 0 || !time.Now().Before(u.deadline)
}

// walkBounded walks from order within what is left of the update's
// bound, and takes what it read from it.
func (c *Cache) walkBounded(order, roots []string, add func(string, bool), budget int) ([]string, bool) {
	unseen, complete, n := walkCounted(order, roots, add, c.watch, min(budget, c.upd.left), c.upd.deadline)
	c.upd.left -= n
	c.lastUpdate.Walks++
	c.lastUpdate.Entries += n
	return unseen, complete
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
	c.kept, c.mounts, c.found, c.unseen, c.coarse, c.roots, c.key, c.dirs, c.entries, c.used, c.freed = false, nil, nil, nil, nil, nil, "", nil, nil, 0, false
}

// walk returns the .git entries below roots in walk order, the
// directories the walk did not look into and whether the walk was
// complete, from the kept walk when it is still valid.
func (c *Cache) walk(order, roots []string) (found, unseen []string, complete bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := strings.Join(order, "\x00") + "\x01" + strings.Join(roots, "\x00")
	if c.kept && c.key == key && c.update(order, roots) {
		if c.coarse == nil && len(c.unseen) > 0 {
			c.coarse = coarsenUnseen(c.unseen, roots, maxUnseen)
		}
		return slices.Clone(c.found), slices.Clone(c.coarse), c.complete
	}
	switch {
	case c.kept && c.key != key:
		c.why = "other roots"
	case !c.kept && c.walks > 0:
		c.why = c.lostWhy
	}
	c.drop(true)
	c.walks++
	// Everything that can report a change is in place before the walk
	// looks, so a change during the walk is seen at the next check.
	ino, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	mounts, merr := mounttable.Open()
	ids, ok := rootIDs(order)
	c.ino, c.dirs, c.entries, c.used, c.lost = ino, map[int32]string{}, map[int32]int{}, 0, err != nil || merr != nil || !ok
	switch {
	case err != nil:
		c.lostWhy = fmt.Sprintf("inotify could not be started: %v", err)
	case merr != nil:
		c.lostWhy = fmt.Sprintf("the mount table could not be read: %v", merr)
	case !ok:
		c.lostWhy = "a root is missing"
	}
	unseen, complete = walkWatched(order, roots, func(p string, target bool) {
		if !target {
			found = append(found, p)
		}
	}, c.watch, c.maxEntries(), time.Now().Add(MaxTime))
	if c.lost {
		if err == nil {
			_ = unix.Close(ino) // an inotify descriptor: nothing to flush
		}
		if merr == nil {
			_ = mounts.Close() // read-only: nothing to flush
		}
		c.dirs, c.entries = nil, nil
		return found, unseen, complete
	}
	c.key, c.roots, c.found, c.unseen, c.complete, c.mounts, c.kept = key, ids, found, unseen, complete, mounts, true
	c.walkUnseen = len(unseen)
	return slices.Clone(found), slices.Clone(unseen), complete
}

// watch adds an inotify watch on the directory open at fd (its path dir),
// before the walk reads it, and returns what records the entries read
// there. A directory watched already (one moved, walked again at its new
// place) keeps its watch descriptor: its path and count are replaced.
func (c *Cache) watch(dir string, fd int) func(int) {
	if c.lost {
		return nil
	}
	wd, err := unix.InotifyAddWatch(c.ino, "/proc/self/fd/"+strconv.Itoa(fd), gitWatchMask)
	if err != nil {
		c.lost, c.lostWhy = true, fmt.Sprintf("an inotify watch could not be added: %v", err)
		return nil
	}
	c.dirs[int32(wd)] = dir
	return func(n int) {
		c.used += n - c.entries[int32(wd)]
		c.entries[int32(wd)] = n
	}
}

func (c *Cache) maxEntries() int {
	if c.budget > 0 {
		return c.budget
	}
	return MaxEntries
}

// setUnseen replaces what the kept walk did not look into; with nothing
// left unseen (the last of it moved away, or walked), the walk is whole.
func (c *Cache) setUnseen(unseen []string) {
	c.unseen, c.coarse = unseen, nil
	if len(unseen) == 0 {
		c.complete = true
	}
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
		c.why = "a root was replaced or is missing"
		return false
	}
	if mounttable.Changed(c.mounts) {
		c.why = "the mount table changed"
		return false
	}
	// A directory an update skips costs no budget, so calls that each
	// make many would grow the unseen list, which every update goes over
	// (and the next call's coarsening sorts), without end. Past twice
	// what a fresh walk leaves, walk afresh: that is bounded.
	if n := len(c.unseen); n > 2*max(c.walkUnseen, c.maxEntries()) {
		c.why = fmt.Sprintf("%d directories left unseen by the updates, more than twice what a walk leaves", n)
		return false
	}
	// One budget and one deadline for the whole update, as a fresh walk
	// has: however many directories were made since the last call, the
	// update reads at most MaxEntries entries for MaxTime, and what it
	// does not reach is left unseen (read-only), as a fresh walk cut
	// short leaves it.
	c.upd = updateBound{left: c.maxEntries(), deadline: time.Now().Add(MaxTime)}
	c.lastUpdate = updateWork{}
	buf := make([]byte, 64<<10)
	for range maxEventReads {
		n, err := unix.Read(c.ino, buf)
		if errors.Is(err, unix.EAGAIN) {
			c.flushSkipped()
			return c.resume(roots)
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			c.why = fmt.Sprintf("reading the events: %d bytes, %v", n, err)
			return false
		}
		if !c.apply(buf[:n], roots) {
			return false
		}
	}
	c.why = "more events queued than one check reads"
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
		if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
			c.why = "the event queue overflowed"
			return false
		}
		if ev.Mask&unix.IN_UNMOUNT != 0 {
			c.why = "a watched directory was unmounted"
			return false
		}
		if ev.Mask&unix.IN_IGNORED != 0 {
			if slices.Contains(roots, c.dirs[ev.Wd]) {
				// A root is gone: one made again at its path may have
				// the same inode (rootIDs cannot tell) and has no watch,
				// so nothing made in it would be seen.
				c.why = "a root was removed"
				return false
			}
			// The directory is gone (its watch with it): what the walk
			// read there goes back to the budget (see resume).
			if n := c.entries[ev.Wd]; n > 0 {
				c.used -= n
				c.freed = true
			}
			delete(c.entries, ev.Wd)
			delete(c.dirs, ev.Wd)
			continue
		}
		// Files other than .git, and a watched directory's own attributes
		// (no name: it was read already), change nothing.
		if len(name) == 0 || (string(name) != ".git" && ev.Mask&unix.IN_ISDIR == 0) {
			continue
		}
		dir, ok := c.dirs[ev.Wd]
		if !ok {
			c.why = "an event for a directory not watched"
			return false
		}
		p := filepath.Join(dir, string(name))
		if ev.Mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0 {
			c.removed(p, string(name), ev.Mask)
			continue
		}
		if string(name) == ".git" && slices.Contains(c.found, p) {
			continue // where it points is read on every call
		}
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			continue // gone again: if it comes back, that is a new event
		}
		if string(name) == ".git" {
			// The walk never looks into a .git, so no watch is below it.
			c.found = append(c.found, p)
			continue
		}
		// A new directory (no watch below it yet), one moved here (from
		// outside the roots, from a part the walk did not see, or from
		// another watched place: its watches keep their descriptors and
		// get their new paths), or one that may have been unreadable:
		// walk it as the walk would have.
		if c.upd.spent() {
			// The update's budget or time is spent: p is not looked
			// into, and stays read-only as a fresh walk leaves what it
			// did not reach (a later resume walks on from it). A
			// directory watched at this very path was read whole and
			// reports what is made in it (only its attributes changed):
			// it needs no walk.
			if ev.Mask&unix.IN_ATTRIB != 0 && c.watchedAt(p) {
				continue
			}
			c.lastUpdate.Skipped++
			c.upd.skipped = append(c.upd.skipped, p)
			c.complete = false
			continue
		}
		unseen, complete := c.walkBounded([]string{p}, roots, func(q string, target bool) {
			if !target && !slices.Contains(c.found, q) {
				c.found = append(c.found, q)
			}
		}, c.maxEntries())
		if c.lost {
			c.why = c.lostWhy
			return false
		}
		// p is looked at now (one unreadable before may be readable):
		// what is unseen below it is what this walk left.
		c.setUnseen(append(slices.DeleteFunc(c.unseen, func(u string) bool { return events.Within(u, p) }), unseen...))
		c.complete = c.complete && complete
	}
	return true
}

// removed applies the removal of p (a .git, or a directory) from a
// watched directory, or its move elsewhere, once nothing is at p any
// more (something there again has an event of its own, which walks it).
// A .git gone is no longer listed. What the walk did not see in a
// directory gone is nothing to bind; a directory moved away takes it
// along, to a place below the roots that is walked (a watched directory:
// its own event) or unseen already (a part the walk did not look into).
// Nothing is walked here: a directory removed gives its entries back to
// the budget with its watch (IN_IGNORED, see resume).
func (c *Cache) removed(p, name string, mask uint32) {
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		return
	}
	if name == ".git" {
		c.found = slices.DeleteFunc(c.found, func(f string) bool { return f == p })
	}
	if mask&unix.IN_ISDIR != 0 && slices.ContainsFunc(c.unseen, func(u string) bool { return events.Within(u, p) }) {
		c.setUnseen(slices.DeleteFunc(c.unseen, func(u string) bool { return events.Within(u, p) }))
	}
}

// resume walks on from what a walk cut short did not look into, with the
// entries that directories removed since gave back to the budget: the
// kept walk then reaches as far as a fresh one would, without walking
// again what it has seen. False when it cannot keep the walk (a watch
// refused).
func (c *Cache) resume(roots []string) bool {
	if c.complete || !c.freed || c.used >= c.maxEntries() || c.upd.spent() {
		return true
	}
	c.freed = false
	// In the order the walk left them (breadth first, the roots not
	// started last), each once.
	from := inOrderOutermost(c.unseen)
	unseen, complete := c.walkBounded(from, roots, func(q string, target bool) {
		if !target && !slices.Contains(c.found, q) {
			c.found = append(c.found, q)
		}
	}, c.maxEntries()-c.used)
	if c.lost {
		c.why = c.lostWhy
		return false
	}
	c.setUnseen(unseen)
	c.complete = complete
	return true
}

// inOrderOutermost is paths in their order without a path below another
// of them, or twice.
func inOrderOutermost(paths []string) []string {
	in := make(map[string]bool, len(paths))
	for _, p := range paths {
		in[p] = true
	}
	out := make([]string, 0, len(paths))
	done := make(map[string]bool, len(paths))
	for _, p := range paths {
		below := false
		for d := p; d != "/" && !below; {
			d = filepath.Dir(d)
			below = in[d]
		}
		if !below && !done[p] {
			done[p] = true
			out = append(out, p)
		}
	}
	return out
}

// LastRewalk says why the last whole walk after the first was done (the
// kept walk could not be used or brought up to date): "" when none was.
// Tests tell a walk done again for a reason of the host's (an overflowed
// queue, inotify's limits, a mount) from one the cache should not need.
func (c *Cache) LastRewalk() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.why
}

// Walks reports how many whole walks the cache has done: a kept walk used
// again, or brought up to date from its events, is not one.
func (c *Cache) Walks() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.walks
}
