package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/docket-engine/docket/journal/internal/boltfile"
)

// Remake makes the journal of session id afresh, in place, at path: the
// file Create began for it and a crash stopped before its first commit.
// Such a file is empty, or all zeros, or bbolt's empty database without
// Docket's buckets; Open calls it not a journal, and nothing in it can be
// lost. Remake takes over only a file that Create could have left: a
// regular file (not a symbolic link, not hard-linked from elsewhere) of
// this user, named for session id, that nobody holds open, with nothing
// committed in it. Anything else it leaves as it is and reports as a
// NotJournalError saying why.
//
// A parent session names a subagent's id in its journal before the child's
// journal is created; resuming the parent after such a crash must run the
// child, not lose it (issue 27).
func Remake(path, id string) (*Journal, error) {
	if named := idFromPath(path); named != id {
		return nil, &NotJournalError{Path: path, Reason: fmt.Sprintf("its name says session %s, not %s: not remade", named, id)}
	}
	info, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("remake journal %s: %w", path, err)
	}
	if why := notCreated(info); why != "" {
		return nil, &NotJournalError{Path: path, Reason: why + ", which docket never creates: not remade"}
	}
	// O_NOFOLLOW: a link swapped in since the Lstat is refused, not followed.
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("remake journal %s: %w", path, err)
	}
	held := false
	defer func() {
		if !held {
			_ = f.Close() // nothing written through it
		}
	}()
	if err := flockWithin(f, syscall.LOCK_EX); err != nil {
		if errors.Is(err, errLocked) {
			return nil, &InUseError{SessionID: id, Path: path, PID: readPID(path)}
		}
		return nil, fmt.Errorf("remake journal %s: %w", path, err)
	}
	opened, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("remake journal %s: %w", path, err)
	}
	if !os.SameFile(info, opened) {
		return nil, &NotJournalError{Path: path, Reason: "it was replaced while docket looked at it: not remade"}
	}
	if why := notCreated(opened); why != "" {
		return nil, &NotJournalError{Path: path, Reason: why + ", which docket never creates: not remade"}
	}
	unborn, err := boltfile.Unborn(f)
	if err != nil {
		return nil, fmt.Errorf("remake journal %s: %w", path, err)
	}
	if !unborn {
		return nil, &NotJournalError{Path: path, Reason: "it holds data docket's creation of a journal never writes: not remade"}
	}
	if err := f.Truncate(0); err != nil {
		return nil, fmt.Errorf("remake journal %s: %w", path, err)
	}
	held = true // open closes f if it fails
	j, err := open(path, id, false, true, f)
	if err != nil {
		return nil, err
	}
	// The crash may have come before Create synced the directory: the
	// file's name is durable only once its directory is.
	if err := syncDirs([]string{filepath.Dir(path)}); err != nil {
		_ = j.Abandon() // nothing is buffered yet: the sync error is the one to report
		return nil, fmt.Errorf("remake journal %s: %w", path, err)
	}
	return j, nil
}

// notCreated says why info is not a file Create makes: Create makes a
// regular file of the user running docket with one name. "" when it could be.
func notCreated(info os.FileInfo) string {
	if info.Mode()&os.ModeSymlink != 0 {
		return "it is a symbolic link"
	}
	if !info.Mode().IsRegular() {
		return "it is not a regular file"
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	if n := uint64(st.Nlink); n != 1 {
		return fmt.Sprintf("it has %d hard links", n)
	}
	if uid := int(st.Uid); uid != os.Geteuid() {
		return fmt.Sprintf("it belongs to uid %d", uid)
	}
	return ""
}
