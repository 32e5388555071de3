package openai

import (
	"context"
	"sync/atomic"
	"time"
)

// watchdog cancels an attempt's context when nothing has arrived for d.
type watchdog struct {
	d     time.Duration
	timer *time.Timer
	fired atomic.Bool
}

// watch derives a context that the watchdog cancels after d of silence.
// Call kick on every sign of life and stop when done.
func watch(parent context.Context, d time.Duration) (context.Context, *watchdog, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	w := &watchdog{d: d}
	w.timer = time.AfterFunc(d, func() {
		w.fired.Store(true)
		cancel()
	})
	return ctx, w, func() {
		w.timer.Stop()
		cancel()
	}
}

func (w *watchdog) kick() { w.timer.Reset(w.d) }

// idle reports whether the watchdog, not the caller, ended the context.
func (w *watchdog) idle() bool { return w.fired.Load() }
