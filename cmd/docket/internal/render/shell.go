package render

import (
	"os"

	"github.com/docket-engine/docket/events/safetext"

	"golang.org/x/sys/unix"
)

// ShellJoin renders argv as one command line that a shell reads back as
// the same argv and that cannot act on a terminal: plain words bare, others
// single-quoted (as Codex does), and words holding control characters,
// bidi overrides or invisible characters in $'…' with those escaped. It is
// safetext.Join, the one renderer of argv for people.
func ShellJoin(argv []string) string { return safetext.Join(argv) }

// IsTerminal reports whether f is a terminal. It leaves f's blocking mode
// alone (f.Fd would not), so read deadlines on f keep working.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var terr error
	if err := rc.Control(func(fd uintptr) { _, terr = unix.IoctlGetTermios(int(fd), ioctlGetTermios) }); err != nil {
		return false
	}
	return terr == nil
}
