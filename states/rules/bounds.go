package rules

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"sync"
	"time"

	"go.starlark.net/starlark"
)

// DefaultMaxMemory bounds how much the Go heap may grow while one rules
// file evaluates. A rules file declares a few rules and needs kilobytes; a
// file that grows a value without end (a list doubled forty times) is
// stopped here instead of growing until the kernel kills Docket.
const DefaultMaxMemory = 64 << 20

// DefaultMaxTime bounds how long one rules file may evaluate. Steps alone
// do not bound time: a step may scan a megabyte string, and ten million of
// those take minutes. A rules file loads in milliseconds; this is for a
// loaded machine, not for a slow file.
const DefaultMaxTime = 30 * time.Second

// ErrTooSlow is wrapped by the error of a rules file that evaluated for
// longer than its time bound.
var ErrTooSlow = errors.New("the rules file takes too long to load")

// memoryPoll is how often the watchdog reads the heap while a file
// evaluates: a doubling of a list near the limit takes longer than this,
// so at most one more doubling completes before the file is stopped.
const memoryPoll = time.Millisecond

// ErrTooMuchMemory is wrapped by the error of a rules file that grew the
// heap past its bound.
var ErrTooMuchMemory = errors.New("the rules file uses too much memory")

// ErrTooManySteps is wrapped by the error of a rules file that ran past its
// step bound (a runaway loop).
var ErrTooManySteps = errors.New("too many steps")

// heapBytes is the size of the heap's objects, live or not yet swept. It
// is a process-wide figure: the bound is on growth during one evaluation,
// which a rules file dominates.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// guard bounds one thread's evaluation: it cancels the thread when ctx
// ends or the heap grows more than maxMemory, and says afterwards which
// bound stopped it. Cancellation is how go.starlark.net stops a running
// thread; the interpreter sees it before its next step.
type guard struct {
	ctx    context.Context
	thread *starlark.Thread
	stop   chan struct{}
	done   sync.WaitGroup

	mu     sync.Mutex
	reason error // the bound that cancelled the thread
}

func startGuard(ctx context.Context, thread *starlark.Thread, maxMemory uint64, maxTime time.Duration) *guard {
	g := &guard{ctx: ctx, thread: thread, stop: make(chan struct{})}
	base := heapBytes()
	g.done.Add(1)
	go func() {
		defer g.done.Done()
		tick := time.NewTicker(memoryPoll)
		defer tick.Stop()
		deadline := time.NewTimer(maxTime)
		defer deadline.Stop()
		for {
			select {
			case <-g.stop:
				return
			case <-deadline.C:
				g.cancel(fmt.Errorf("%w (more than %s)", ErrTooSlow, maxTime), "the rules file takes too long to load")
				return
			case <-ctx.Done():
				g.cancel(ctx.Err(), "loading the rules was interrupted")
				return
			case <-tick.C:
				if now := heapBytes(); now > base && now-base > maxMemory {
					g.cancel(fmt.Errorf("%w (the heap grew past %d MiB while it loaded)", ErrTooMuchMemory, maxMemory>>20),
						"the rules file uses too much memory")
					return
				}
			}
		}
	}()
	return g
}

func (g *guard) cancel(reason error, words string) {
	g.mu.Lock()
	if g.reason == nil {
		g.reason = reason
	}
	g.mu.Unlock()
	g.thread.Cancel(words)
}

// finish stops the watchdog and returns the bound that stopped the
// thread, if one did.
func (g *guard) finish() error {
	close(g.stop)
	g.done.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.reason
}
