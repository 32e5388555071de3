package sandbox

import (
	"bytes"
	"path/filepath"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// walkForGitDirs walks each root of order in turn, breadth first (shallow
// repositories first), without following links, looking into .git
// directories or entering another of roots, calling add for every .git
// entry (target false) and its targets (target true). The bounds are for the whole walk; it returns
// false when it stopped at one. It reads directories with getdents64 into one
// buffer and makes strings only for subdirectories: the walk runs on every
// call, so its cost per entry matters (see BenchmarkGitDirs*).
func walkForGitDirs(order, roots []string, add func(p string, target bool), maxEntries int, deadline time.Time) bool {
	return walkWatched(order, roots, add, nil, maxEntries, deadline)
}

// walkWatched is walkForGitDirs calling watch (when not nil) on every
// directory it opens, before it reads it, so that an entry made there
// after the read cannot go unnoticed (GitWalkCache).
func walkWatched(order, roots []string, add func(p string, target bool), watch func(dir string, fd int), maxEntries int, deadline time.Time) bool {
	buf := make([]byte, 32<<10)
	entries := 0
	for _, root := range order {
		if !walkRoot(root, roots, add, watch, buf, &entries, maxEntries, deadline) {
			return false
		}
	}
	return true
}

// walkRoot is one root's breadth-first walk for walkForGitDirs.
func walkRoot(root string, roots []string, add func(p string, target bool), watch func(dir string, fd int), buf []byte, entries *int, maxEntries int, deadline time.Time) bool {
	queue := []string{root}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // unreadable to docket: the command, no stronger, cannot write there either
		}
		if watch != nil {
			watch(dir, fd)
		}
		for {
			n, err := unix.Getdents(fd, buf)
			if err != nil || n <= 0 {
				break
			}
			for off := 0; off < n; {
				// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
				reclen := int(*(*uint16)(unsafe.Pointer(&buf[off+16])))
				typ := buf[off+18]
				name := buf[off+19 : off+reclen]
				if i := bytes.IndexByte(name, 0); i >= 0 {
					name = name[:i]
				}
				off += reclen
				*entries++
				switch {
				case string(name) == ".git":
					p := filepath.Join(dir, ".git")
					add(p, false)
					for _, t := range GitDirTargets(p) {
						add(t, true)
					}
				case string(name) == "." || string(name) == "..":
				case typ == unix.DT_DIR || typ == unix.DT_UNKNOWN:
					p := dir + "/" + string(name)
					if dir == "/" {
						p = "/" + string(name)
					}
					// Another root is walked as a root of its own.
					if !contains(roots, p) {
						queue = append(queue, p)
					}
				}
			}
			if *entries > maxEntries {
				_ = unix.Close(fd) // a directory fd, read-only: nothing to flush, and Linux frees the fd even when close fails
				return false
			}
		}
		_ = unix.Close(fd) // a directory fd, read-only: nothing to flush, and Linux frees the fd even when close fails
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}
