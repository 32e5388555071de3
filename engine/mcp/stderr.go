package mcp

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// stderrTailBytes is how much of a server's stderr is kept for error messages.
const stderrTailBytes = 2048

// tail keeps the last stderrTailBytes written to it, and copies every
// complete line to an optional sink with a "[server] " prefix.
type tail struct {
	mu     sync.Mutex
	buf    []byte
	prefix string
	sink   *lockedWriter
	line   []byte // partial line waiting for its newline
}

func newTail(server string, sink *lockedWriter) *tail {
	return &tail{prefix: "[" + server + "] ", sink: sink}
}

// Write never fails: a server's stderr must not block or break the server.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > stderrTailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-stderrTailBytes:]...)
	}
	if t.sink != nil {
		t.line = append(t.line, p...)
		for {
			i := bytes.IndexByte(t.line, '\n')
			if i < 0 {
				break
			}
			t.sink.write(t.prefix, t.line[:i+1])
			t.line = t.line[i+1:]
		}
	}
	return len(p), nil
}

// String returns the kept tail, trimmed, cut at a line start when possible,
// with lines joined by " | " so it fits in one error line.
func (t *tail) String() string {
	t.mu.Lock()
	s := string(t.buf)
	t.mu.Unlock()
	if len(s) == stderrTailBytes {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	lines := strings.Split(strings.TrimSpace(s), "\n")
	const maxLines = 5
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " | ")
}

// lockedWriter serialises whole lines from several servers onto one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) write(prefix string, line []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.w, prefix)
	_, _ = l.w.Write(line)
}
