package stubs

import (
	"bytes"
	"fmt"

	"golang.org/x/sys/unix"
)

// A record lives under one DOCKET_HOME, so a run under another home (a
// parallel test package's temporary home, a user with two homes) sharing
// a stub with the maker could not know docket made it: when the maker
// left first, the last one out left the stub for ever. So docket also
// marks each stub it makes on the directory itself, with an extended
// attribute naming that directory's identity (device, inode, birth):
// copied onto another directory the mark names the wrong one and means
// nothing. It is set before the stub is bound, and the sandbox binds the
// stub read-only, so a command can neither add nor change it there. Where
// the file system keeps no user attributes (ENOTSUP) the stub goes
// unmarked and only records prove it docket's, as before.

// markAttr is the extended attribute that marks a stub docket made.
const markAttr = "user.docket.stub"

// markMax bounds the mark read back: three decimal numbers and two colons.
const markMax = 64

// markValue is the mark of the directory with this identity.
func markValue(dev, ino uint64, birth int64) []byte {
	return fmt.Appendf(nil, "%d:%d:%d", dev, ino, birth)
}

// mark marks the directory open at fd as a stub docket made. Best effort:
// an unmarked stub is still removed by its maker, or through a record.
func mark(fd int) {
	dev, ino, birth, err := identity(fd, "", unix.AT_EMPTY_PATH)
	if err != nil {
		return
	}
	_ = unix.Fsetxattr(fd, markAttr, markValue(dev, ino, birth), 0) // ENOTSUP and the like: the stub stays unmarked, records still prove it
}

// markedAsItself reports whether the directory open at fd carries a mark
// naming its own identity: docket made it, whichever records directory
// holds the maker's record.
func markedAsItself(fd int) bool {
	var buf [markMax]byte
	n, err := unix.Fgetxattr(fd, markAttr, buf[:])
	if err != nil || n <= 0 {
		return false
	}
	dev, ino, birth, err := identity(fd, "", unix.AT_EMPTY_PATH)
	if err != nil {
		return false
	}
	return bytes.Equal(buf[:n], markValue(dev, ino, birth))
}
