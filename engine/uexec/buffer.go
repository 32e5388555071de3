package uexec

import "sync"

// MaxBufferedBytes bounds what a process's output may pile up between two
// polls; past it the oldest bytes are dropped (and counted), so a flood
// costs memory once, not without end.
const MaxBufferedBytes = 1 << 20

// buffer is the output a process produced since the last poll.
type buffer struct {
	mu      sync.Mutex
	data    []byte
	dropped int64
	// total counts every byte ever written, so a watcher can tell what
	// it has not seen yet even after the oldest were dropped.
	total int64
	// more is closed and replaced whenever bytes arrive or the reader ends.
	more chan struct{}
	eof  bool
}

func newBuffer() *buffer { return &buffer{more: make(chan struct{})} }

func (b *buffer) write(p []byte) {
	b.mu.Lock()
	b.data = append(b.data, p...)
	b.total += int64(len(p))
	if over := len(b.data) - MaxBufferedBytes; over > 0 {
		b.dropped += int64(over)
		b.data = append(b.data[:0], b.data[over:]...)
	}
	close(b.more)
	b.more = make(chan struct{})
	b.mu.Unlock()
}

func (b *buffer) close() {
	b.mu.Lock()
	b.eof = true
	close(b.more)
	b.more = make(chan struct{})
	b.mu.Unlock()
}

// wake returns a channel closed when the buffer next changes, and whether
// the reader has ended.
func (b *buffer) wake() (<-chan struct{}, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.more, b.eof
}

// take returns and empties what is buffered, with the bytes dropped.
func (b *buffer) take() ([]byte, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, n := b.data, b.dropped
	b.data, b.dropped = nil, 0
	return d, n
}

// since returns a copy of the buffered bytes written after the first seen
// bytes ever written, and the new total.
func (b *buffer) since(seen int64) ([]byte, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	start := int64(len(b.data)) - (b.total - seen)
	if start < 0 {
		start = 0
	}
	if start >= int64(len(b.data)) {
		return nil, b.total
	}
	return append([]byte(nil), b.data[start:]...), b.total
}

// start returns the count, among all bytes ever written, of those before
// the first one still buffered: a watcher starting now has seen those.
func (b *buffer) start() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total - int64(len(b.data))
}
