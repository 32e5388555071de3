package engine

import (
	"context"
	"sync"
)

// gate makes the calls of one response ask for approval in call order, even
// when they run in parallel: call i asks only after every earlier call has
// passed its initial decision. That keeps prompts readable and makes the
// answers of --decisions land on the same calls every time.
type gate struct {
	mu     sync.Mutex
	passed []chan struct{}
	closed []bool
}

func newGate(n int) *gate {
	g := &gate{passed: make([]chan struct{}, n), closed: make([]bool, n)}
	for i := range g.passed {
		g.passed[i] = make(chan struct{})
	}
	return g
}

// wait blocks until every call before i has passed.
func (g *gate) wait(ctx context.Context, i int) error {
	for j := 0; j < i; j++ {
		select {
		case <-g.passed[j]:
		case <-ctx.Done():
			return ctx.Err()
		}
		// A call that ended the turn (abort) cancels it before it passes:
		// seen here, never raced by select's random choice.
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// pass marks call i as past its initial decision; it is idempotent.
func (g *gate) pass(i int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if i < len(g.closed) && !g.closed[i] {
		g.closed[i] = true
		close(g.passed[i])
	}
}
