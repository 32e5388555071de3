package sandbox

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/docket-engine/docket/internal/elide"
)

// headTail keeps the first and the last bytes of a stream within a cap,
// counting what fell out in between.
type headTail struct {
	limit int
	head  []byte
	tail  []byte // ring of limit-limit/2 bytes once the head is full
	pos   int    // next write position in tail when it is full
	full  bool   // tail has wrapped
	total int64
}

func newHeadTail(limit int) *headTail { return &headTail{limit: limit} }

func (h *headTail) write(p []byte) {
	h.total += int64(len(p))
	headCap := h.limit / 2
	if n := headCap - len(h.head); n > 0 {
		if n > len(p) {
			n = len(p)
		}
		h.head = append(h.head, p[:n]...)
		p = p[n:]
	}
	tailCap := h.limit - headCap
	if tailCap == 0 {
		return
	}
	for len(p) > 0 {
		if !h.full {
			n := tailCap - len(h.tail)
			if n > len(p) {
				n = len(p)
			}
			h.tail = append(h.tail, p[:n]...)
			p = p[n:]
			if len(h.tail) == tailCap {
				h.full = true
				h.pos = 0
			}
			continue
		}
		if len(p) >= tailCap {
			copy(h.tail, p[len(p)-tailCap:])
			h.pos = 0
			return
		}
		n := copy(h.tail[h.pos:], p)
		p = p[n:]
		h.pos = (h.pos + n) % tailCap
	}
}

// truncated reports whether bytes were dropped.
func (h *headTail) truncated() bool { return h.total > int64(h.limit) }

// String returns what was kept; when bytes were dropped, the head and the
// tail are cut on rune boundaries and joined by an elision marker.
func (h *headTail) String() string {
	tail := h.tail
	if h.full && h.pos > 0 {
		tail = append(append(make([]byte, 0, len(h.tail)), h.tail[h.pos:]...), h.tail[:h.pos]...)
	}
	if !h.truncated() {
		return string(h.head) + string(tail)
	}
	head := elide.TrimRuneEnd(string(h.head))
	t := elide.TrimRuneStart(string(tail))
	return head + elide.Marker(h.total-int64(len(head))-int64(len(t))) + t
}

// collector gathers a process's output: each stream and their interleaving,
// each capped, and hands every chunk to the caller's callback in arrival order.
type collector struct {
	mu       sync.Mutex
	stdout   *headTail
	stderr   *headTail
	combined *headTail
	onOutput func(stream string, chunk []byte)
}

func newCollector(limit int, onOutput func(string, []byte)) *collector {
	return &collector{
		stdout:   newHeadTail(limit),
		stderr:   newHeadTail(limit),
		combined: newHeadTail(limit),
		onOutput: onOutput,
	}
}

func (c *collector) add(stream string, p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if stream == "stdout" {
		c.stdout.write(p)
	} else {
		c.stderr.write(p)
	}
	c.combined.write(p)
	if c.onOutput != nil {
		c.onOutput(stream, append([]byte(nil), p...))
	}
}

// pump reads r until EOF or a deadline and feeds the collector.
func (c *collector) pump(stream string, r *os.File, done *sync.WaitGroup) {
	defer done.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			c.add(stream, buf[:n])
		}
		if err != nil {
			switch {
			case errors.Is(err, os.ErrDeadlineExceeded):
				// drain stopped waiting for the end of the stream: a
				// process outside the group holds the pipe open, or this
				// reader was not scheduled in time (a loaded machine). A
				// deadline makes Read return before it reads, so what the
				// command wrote and is still in the pipe is read here.
				c.readBuffered(stream, r, buf)
			case !errors.Is(err, io.EOF):
				c.add("stderr", []byte("docket: reading "+stream+": "+err.Error()+"\n"))
			}
			return
		}
	}
}

// maxBuffered bounds what readBuffered takes: more than a pipe holds (1
// MiB at most by default), so a process still writing cannot keep it.
const maxBuffered = 2 << 20

// readBuffered reads, without waiting, what r's pipe holds now.
func (c *collector) readBuffered(stream string, r *os.File, buf []byte) {
	if r.SetReadDeadline(time.Time{}) != nil {
		return
	}
	rc, err := r.SyscallConn()
	if err != nil {
		return
	}
	taken := 0
	// The func returns true: RawConn.Read never waits for more.
	_ = rc.Read(func(fd uintptr) bool {
		for taken < maxBuffered {
			n, err := syscall.Read(int(fd), buf)
			if n <= 0 || err != nil {
				break
			}
			c.add(stream, buf[:n])
			taken += n
		}
		return true
	})
}
