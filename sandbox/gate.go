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
	once    sync.Once
	decided chan struct{}
	err     error // nil: open
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
	g.once.Do(func() {
		g.err = err
		close(g.decided)
	})
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
