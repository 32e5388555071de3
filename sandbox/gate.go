package sandbox

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrAbandoned is the error of a gated call whose gate was abandoned (or
// whose context ended) before it opened: the command was never started,
// and whatever the call had set up (its stubs, its server's init) is gone
// when Run returns.
var ErrAbandoned = errors.New("sandbox: the call was abandoned before its command started")

// Gate holds a call's command back until its caller says go. Run with a
// gate prepares the call as far as its launcher can without starting the
// command (for a session's server: the walk's update, the stubs, the
// command sent and its init confined with its streams, cgroup and
// limits), then waits; Open starts the command, Abandon ends the call
// with ErrAbandoned and nothing run. The engine uses it to prepare a
// sandboxed call while the call's write-ahead record is made durable: the
// command must not start before that record is on disk, its preparation
// may. PerCall prepares nothing early (it waits before starting its
// helper), and neither does an unsandboxed run. A nil *Gate is open.
type Gate struct {
	mu      sync.Mutex
	done    bool
	err     error  // nil: open
	onOpen  func() // run by the Open that opens it (whenOpen)
	decided chan struct{}
}

// NewGate returns a closed gate.
func NewGate() *Gate {
	return &Gate{decided: make(chan struct{})}
}

// Open lets the command start. Only the first of Open and Abandon counts.
func (g *Gate) Open() { g.decide(nil) }

// Abandon ends the call without starting its command. Only the first of
// Open and Abandon counts.
func (g *Gate) Abandon() { g.decide(ErrAbandoned) }

func (g *Gate) decide(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done {
		return
	}
	g.done, g.err = true, err
	if err == nil && g.onOpen != nil {
		g.onOpen()
	}
	close(g.decided)
}

// whenOpen has f run as the gate opens, on the goroutine that opens it
// (at once, on this one, when it is open already; never when it was
// abandoned): the launcher's go then costs no wake-up of the goroutine
// waiting for the gate. f runs before wait returns.
func (g *Gate) whenOpen(f func()) {
	if g == nil {
		f()
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done {
		if g.err == nil {
			f()
		}
		return
	}
	g.onOpen = f
}

// wait returns nil once the gate is open, and an error wrapping
// ErrAbandoned once it was abandoned or ctx ended first (which abandons
// it: a later Open does not count). Every wait after the first returns the
// same answer, so that a launcher's retries see one decision.
func (g *Gate) wait(ctx context.Context) error {
	if g == nil {
		return nil
	}
	select {
	case <-g.decided:
	case <-ctx.Done():
		g.decide(fmt.Errorf("%w: %w", ErrAbandoned, ctx.Err()))
	}
	<-g.decided
	return g.err
}
