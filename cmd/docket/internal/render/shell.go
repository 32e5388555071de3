package render

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// ShellJoin renders argv as one shell command line, quoting the way Codex
// does (Rust shlex's join): plain words stay bare, others go in single
// quotes, and a single quote inside one is written '"'"'.
func ShellJoin(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = shellQuote(a)
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for i := 0; i < len(s); i++ {
		if !bareByte(s[i]) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// bareByte reports whether c needs no quoting in a POSIX shell word.
func bareByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	case c >= 0x80:
		return true
	}
	return strings.IndexByte("+-./:@]_", c) >= 0
}

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
	if err := rc.Control(func(fd uintptr) { _, terr = unix.IoctlGetTermios(int(fd), unix.TCGETS) }); err != nil {
		return false
	}
	return terr == nil
}
