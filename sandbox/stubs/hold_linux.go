package stubs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/events"
)

// makeMode is the mode a stub is made with, until it is marked.
const makeMode = 0o700

// Landlock cannot refuse the creation of one name in a writable directory,
// and a mount needs an existing mount point. So for a protected path that
// does not exist (say <root>/.git in a fresh directory), the parent creates
// an empty directory (mode 0555) that the helper binds read-only; the
// sandboxed command can then neither create, replace, rename nor remove it.
// Git ignores an empty .git directory and keeps searching upwards, so the
// stub is harmless to other programs while it exists.
//
// Runs sharing a stub hold a shared flock on it; the last one out
// (the one that gets the exclusive lock) removes it if it is still an
// empty stub that docket made, so the directory does not outlive
// the runs. Docket made it when this run's mkdir did, when it carries
// docket's mark naming this very directory (mark_linux.go: whichever
// DOCKET_HOME the maker had), or when a record another run wrote under
// records names it (device, inode, birth); a directory found existing,
// unmarked and recorded nowhere is the user's, whatever it looks like,
// and is never removed.

// Hold is the package's Hold without the release: the locks stay until
// Close.
func (ph *Keeper) Hold(paths, roots []string, records string) ([]string, error) {
	ph.mu.Lock()
	defer ph.mu.Unlock()
	if ph.held == nil {
		ph.held = map[string]heldPath{}
	}
	var keep []string
	for _, p := range paths {
		if h, ok := ph.held[p]; ok {
			// Still the directory we hold? Someone on the host may have
			// removed it since the last run.
			if h.f == nil || func() bool { same, _ := sameFile(h.f, h.path); return same }() {
				keep = append(keep, h.path)
				continue
			}
			_ = h.f.Close() // a stale stub's directory fd: read-only: nothing to flush, and Linux frees the fd even when close fails (which drops its lock)
			delete(ph.held, p)
		}
		h, ok, err := holdAt(p, roots, records, nil, 0)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		ph.held[p] = h
		keep = append(keep, h.path)
	}
	return keep, nil
}

// Hold prepares each protected path for binding and returns the
// paths the helper should bind, plus a release func to call once the
// sandbox has exited. Paths that cannot be created are dropped: the
// sandboxed command, with no more rights than docket, cannot create them
// either.
func Hold(paths, roots []string, records string) ([]string, func(), error) {
	var held []heldPath
	var keep, made []string
	record := ""
	var recorded []stubRecord
	release := func() {
		for _, h := range held {
			releaseStub(h)
		}
		if record == "" {
			return
		}
		for _, rec := range recorded {
			if stillThere(rec) {
				return // another run holds it: the record stays, for the next start
			}
		}
		_ = os.Remove(record) // every stub it names is gone; a stale one is dropped by the next start anyway
	}
	for _, p := range paths {
		h, ok, err := holdAt(p, roots, records, &made, 0)
		if err != nil {
			release()
			return nil, nil, err
		}
		if !ok {
			continue
		}
		keep = append(keep, h.path)
		if h.f != nil {
			held = append(held, h)
		}
	}
	// Best effort, as one record per path was: without it a stub a
	// killed docket leaves stays until removed by hand.
	record, recorded, _ = recordCall(records, made)
	return keep, release, nil
}

// maxLinkDepth bounds how many symlinks holdAt follows.
const maxLinkDepth = 8

// holdAt makes sure p exists and, for a directory, takes a shared lock.
// Nothing is created outside the writable roots: there the sandbox cannot
// create anything either. A directory it creates is recorded under records
// (when not empty) until it is removed, so that a docket killed while
// holding it leaves a record the next start can act on: at once in a file
// of its path's, or, when made is set, by the caller, which gets the path
// appended to made and records the call's at once (recordCall).
func holdAt(p string, roots []string, records string, madeList *[]string, depth int) (heldPath, bool, error) {
	if !events.WithinAny(p, roots) {
		return heldPath{}, false, nil
	}
	for attempt := 0; attempt < 5; attempt++ {
		made := false
		// Made writable to its owner, so that the mark can be set (a user
		// attribute needs write permission: only CAP_DAC_OVERRIDE skips
		// that), then made Mode below, before the stub is bound.
		err := unix.Mkdir(p, makeMode)
		if err != nil && !errors.Is(err, unix.EEXIST) {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.EROFS) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EPERM) {
				return heldPath{}, false, nil
			}
			return heldPath{}, false, fmt.Errorf("creating stub %s: %w", p, err)
		}
		if err == nil {
			made = true
			if madeList != nil {
				if !slices.Contains(*madeList, p) {
					*madeList = append(*madeList, p)
				}
			} else {
				// Best effort: without the record a stub a killed
				// docket leaves stays until removed by hand.
				_ = recordStub(records, p)
			}
		}
		// Open first and look only when that fails: on the common path (a
		// directory, just made or already there) that is one syscall
		// instead of an lstat and an open, and unix.Open skips the
		// poller registration os.OpenFile tries (and fails) for a
		// directory.
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			// A symlink, or not a directory (a worktree's .git file).
			fi, lerr := os.Lstat(p)
			if errors.Is(lerr, os.ErrNotExist) {
				continue
			}
			if lerr != nil {
				return heldPath{}, false, fmt.Errorf("protected path %s: %w", p, lerr)
			}
			if fi.Mode()&os.ModeSymlink != 0 {
				return holdLinkTarget(p, roots, records, madeList, depth)
			}
			if !fi.IsDir() {
				return heldPath{path: p}, true, nil
			}
			continue // a directory again: replaced meanwhile, look once more
		}
		if err != nil {
			// Someone else's directory we cannot open: bind it unlocked.
			return heldPath{path: p}, true, nil
		}
		f := os.NewFile(uintptr(fd), p)
		if err := unix.Flock(fd, unix.LOCK_SH); err != nil {
			_ = f.Close() // error path: a directory fd, read-only: nothing to flush, and Linux frees the fd even when close fails
			return heldPath{}, false, fmt.Errorf("locking %s: %w", p, err)
		}
		// The last holder may have removed it while we waited for the lock.
		if same, _ := sameFile(f, p); !same {
			_ = f.Close() // not our stub any more: a directory fd, read-only: nothing to flush, and Linux frees the fd even when close fails
			continue
		}
		// Mark it as docket's before anyone binds it (read-only: then no
		// command can change the mark), then give it the stub's mode: it
		// was made makeMode, never Mode, so the chmod is always due.
		if made {
			mark(fd)
			_ = unix.Fchmod(fd, Mode)
		}
		// With made set the record is the caller's, dropped by the caller.
		return heldPath{path: p, f: f, made: made, records: records, ownRecord: made && madeList == nil}, true, nil
	}
	return heldPath{}, false, fmt.Errorf("protected path %s keeps disappearing", p)
}

// holdLinkTarget protects what the symlink p points to. A dangling link is
// the dangerous case: creating its target would create the protected path,
// so the target gets the stub.
func holdLinkTarget(p string, roots []string, records string, made *[]string, depth int) (heldPath, bool, error) {
	if depth >= maxLinkDepth {
		return heldPath{}, false, fmt.Errorf("protected path %s: too many levels of symbolic links", p)
	}
	target, err := os.Readlink(p)
	if err != nil {
		return heldPath{}, false, fmt.Errorf("protected path %s: %w", p, err)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(p), target)
	}
	// Resolve the directories on the way, so that the path bound is the
	// one the kernel would reach.
	dir, err := filepath.EvalSymlinks(filepath.Dir(target))
	if err != nil {
		return heldPath{}, false, nil // no parent: nothing can be created there either
	}
	return holdAt(filepath.Join(dir, filepath.Base(target)), roots, records, made, depth+1)
}

// releaseStub drops the lock and removes the directory if no other
// run holds it, it is still an empty stub and docket made it (this
// run; or another, whose mark on the directory or record names it).
func releaseStub(h heldPath) {
	removed := false
	defer func() {
		// A directory fd, read-only: nothing to flush, and Linux frees the
		// fd even when close fails (which drops any lock left). Once the
		// directory is removed, the last close frees its inode (a few
		// hundred microseconds of ext4's time): nothing anybody can see
		// waits for that, so it is done off the call's path.
		if removed {
			go func() { _ = h.f.Close() }()
			return
		}
		_ = h.f.Close()
	}()
	// Converting the shared lock drops it first (flock(2)), as an unlock
	// would: one syscall, not two.
	fd := int(h.f.Fd())
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return // another run holds it and will clean up
	}
	same, fi := sameFile(h.f, h.path)
	if !same || fi.Mode().Perm() != Mode {
		return
	}
	// Nothing read h.f before: it is at the directory's start.
	if names, err := h.f.Readdirnames(1); len(names) > 0 || !errors.Is(err, io.EOF) {
		return
	}
	if !h.made && !markedAsItself(fd) && !recordedAnywhere(h.records, h.f) {
		return // found existing, unmarked and recorded by no docket: the user's
	}
	if unix.Rmdir(h.path) == nil {
		removed = true
		if h.ownRecord {
			forgetStub(h.records, h.path, fi)
		}
	}
}

// sameFile reports whether path still names the file f has open.
func sameFile(f *os.File, path string) (bool, os.FileInfo) {
	a, err := f.Stat()
	if err != nil {
		return false, nil
	}
	b, err := os.Lstat(path)
	if err != nil {
		return false, nil
	}
	return os.SameFile(a, b), b
}
