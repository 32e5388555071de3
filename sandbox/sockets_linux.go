package sandbox

import (
	"bytes"
	"fmt"
	"os"
)

// maxCoveredSockets bounds the socket paths passed to the helper (they
// travel in its argv, whose strings the kernel caps at 128 KiB each).
const maxCoveredSockets = 2048

// boundUnixSockets returns the distinct absolute paths of the unix sockets
// bound in this process's network namespace (/proc/net/unix), and whether
// the list is complete. Abstract sockets (shown with '@') are Landlock's
// scope's business; relative paths cannot be placed and are left out (see
// docs/sandbox.md, residual risks).
func boundUnixSockets() ([]string, bool, error) {
	b, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		return nil, false, fmt.Errorf("reading /proc/net/unix: %w", err)
	}
	return parseProcNetUnix(b)
}

// parseProcNetUnix parses /proc/net/unix: a header line, then
// "Num: RefCount Protocol Flags Type St Inode[ Path]" per socket. The
// kernel prints a name's bytes as they are, so the path is everything
// after the one space that follows the inode, spaces and carriage returns
// included: trimming them would cover a near name and leave the socket
// open. A line without the fixed fields (a name holding a newline spills
// onto the next line) marks the list incomplete.
func parseProcNetUnix(b []byte) ([]string, bool, error) {
	seen := map[string]bool{}
	var out []string
	complete := true
	lines := bytes.Split(b, []byte{'\n'})
	if len(lines) > 0 {
		lines = lines[1:] // the header
	}
	for _, line := range lines {
		if len(line) == 0 {
			continue
		}
		rest, ok := skipUnixFields(line)
		if !ok {
			complete = false
			continue
		}
		if len(rest) < 2 || rest[0] != ' ' || rest[1] != '/' {
			continue // unbound, abstract ('@') or relative
		}
		path := string(rest[1:])
		if seen[path] {
			continue
		}
		if len(out) == maxCoveredSockets {
			return out, false, nil
		}
		seen[path] = true
		out = append(out, path)
	}
	return out, complete, nil
}

// skipUnixFields checks the seven fixed fields of a /proc/net/unix line
// (a "%pK:" address, five hex numbers, a decimal inode padded on the
// left) and returns what follows them.
func skipUnixFields(line []byte) ([]byte, bool) {
	rest := line
	for i := 0; i < 7; i++ {
		rest = bytes.TrimLeft(rest, " ")
		j := bytes.IndexByte(rest, ' ')
		if j < 0 {
			j = len(rest)
		}
		field := rest[:j]
		switch {
		case i == 0:
			var ok bool
			field, ok = bytes.CutSuffix(field, []byte{':'})
			if !ok || !allDigits(field, true) {
				return nil, false
			}
		case i < 6:
			if !allDigits(field, true) {
				return nil, false
			}
		default:
			if !allDigits(field, false) {
				return nil, false
			}
		}
		rest = rest[j:]
	}
	return rest, true
}

// allDigits reports whether b is not empty and all decimal digits (or
// hex digits, when hex).
func allDigits(b []byte, hex bool) bool {
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
		case hex && ('a' <= c && c <= 'f' || 'A' <= c && c <= 'F'):
		default:
			return false
		}
	}
	return len(b) > 0
}
