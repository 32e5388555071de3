package gitwalk

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// walk walks each root of order in turn, breadth first (shallow
// repositories first), without following links, looking into .git
// directories or entering another of roots, calling add for every .git
// entry (target false) and its targets (target true). The bounds are for
// the whole walk; complete is false when it stopped at one. It returns the
// directories it did not look into (see walkStop): the caller keeps them
// read-only. It reads directories with getdents64 into one buffer and makes
// strings only for subdirectories: the walk runs on every call, so its cost
// per entry matters (see BenchmarkGitDirs* in sandbox).
func walk(order, roots []string, add func(p string, target bool), maxEntries int, deadline time.Time) (unseen []string, complete bool) {
	return walkWatched(order, roots, add, nil, maxEntries, deadline)
}

// watchFunc is called on every directory a walk opens, before it reads it,
// so that an entry made there after the read cannot go unnoticed (Cache).
// The function it returns, when not nil, is told how many entries the
// walk read there (the kept walk's share of the budget).
type watchFunc func(dir string, fd int) (read func(entries int))

// walkWatched is walk calling watch (when not nil) on every directory it
// opens (see watchFunc).
func walkWatched(order, roots []string, add func(p string, target bool), watch watchFunc, maxEntries int, deadline time.Time) (unseen []string, complete bool) {
	unseen, complete, _ = walkCounted(order, roots, add, watch, maxEntries, deadline)
	return unseen, complete
}

// walkCounted is walkWatched also returning how many directory entries
// it read, for a caller sharing one budget between walks (Cache.update).
func walkCounted(order, roots []string, add func(p string, target bool), watch watchFunc, maxEntries int, deadline time.Time) (unseen []string, complete bool, entries int) {
	w := walker{roots: roots, add: add, watch: watch, buf: make([]byte, 32<<10), maxEntries: maxEntries, deadline: deadline}
	for i, root := range order {
		if !w.walkRoot(root) {
			// The roots not started are not seen at all.
			return append(w.unseen, order[i+1:]...), false, w.entries
		}
	}
	return w.unseen, true, w.entries
}

// walker is one walk's state.
type walker struct {
	roots      []string
	add        func(p string, target bool)
	watch      watchFunc
	buf        []byte
	entries    int
	maxEntries int
	deadline   time.Time
	// unseen are the directories the walk did not look into: those it
	// could not open (unreadable to docket, yet perhaps writable and
	// searchable to the command) and, once it stopped at a bound, the ones
	// it had not reached and the one it was reading.
	unseen []string
}

// walkRoot is one root's breadth-first walk; false when it stopped at a
// bound, with what it did not reach added to w.unseen.
func (w *walker) walkRoot(root string) bool {
	queue := []string{root}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			// Gone, a link or not a directory: nothing of a root's to
			// look into. Any other refusal (EACCES: a directory that is
			// -wx to the command too) leaves it unseen.
			if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) && !errors.Is(err, unix.ELOOP) {
				w.unseen = append(w.unseen, dir)
			}
			continue
		}
		var counted func(int)
		if w.watch != nil {
			counted = w.watch(dir, fd)
		}
		before := w.entries
		var stop bool
		queue, stop = w.read(dir, fd, queue)
		if counted != nil {
			counted(w.entries - before)
		}
		_ = unix.Close(fd) // a directory fd, read-only: nothing to flush, and Linux frees the fd even when close fails
		if !stop && len(queue) > 0 && time.Now().After(w.deadline) {
			stop = true
		}
		if stop {
			w.unseen = append(w.unseen, queue...)
			return false
		}
	}
	return true
}

// read reads the directory open at fd, queueing its subdirectories; stop
// when the entry bound was reached before its end (dir is then unseen,
// and what it queued, below it, dropped).
func (w *walker) read(dir string, fd int, queue []string) ([]string, bool) {
	before := len(queue)
	for {
		n, err := unix.Getdents(fd, w.buf)
		if err != nil || n <= 0 {
			return queue, false
		}
		if w.entries > w.maxEntries {
			w.unseen = append(w.unseen, dir)
			return queue[:before], true
		}
		for off := 0; off < n; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(*(*uint16)(unsafe.Pointer(&w.buf[off+16])))
			typ := w.buf[off+18]
			name := w.buf[off+19 : off+reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			w.entries++
			switch {
			case string(name) == ".git":
				p := filepath.Join(dir, ".git")
				w.add(p, false)
				for _, t := range Targets(p) {
					w.add(t, true)
				}
			case string(name) == "." || string(name) == "..":
			case typ == unix.DT_DIR || typ == unix.DT_UNKNOWN:
				p := dir + "/" + string(name)
				if dir == "/" {
					p = "/" + string(name)
				}
				// Another root is walked as a root of its own.
				if !slices.Contains(w.roots, p) {
					queue = append(queue, p)
				}
			}
		}
	}
}
