package sandbox

import (
	"bufio"
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
// "Num RefCount Protocol Flags Type St Inode [Path]" per socket.
func parseProcNetUnix(b []byte) ([]string, bool, error) {
	seen := map[string]bool{}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		line := sc.Bytes()
		// Skip the seven fixed fields; the path is the rest of the line.
		rest := line
		for i := 0; i < 7; i++ {
			rest = bytes.TrimLeft(rest, " ")
			j := bytes.IndexByte(rest, ' ')
			if j < 0 {
				rest = nil
				break
			}
			rest = rest[j:]
		}
		path := string(bytes.TrimSpace(rest))
		if len(path) == 0 || path[0] != '/' || seen[path] {
			continue
		}
		if len(out) == maxCoveredSockets {
			return out, false, nil
		}
		seen[path] = true
		out = append(out, path)
	}
	if err := sc.Err(); err != nil {
		return out, false, fmt.Errorf("reading /proc/net/unix: %w", err)
	}
	return out, true, nil
}
