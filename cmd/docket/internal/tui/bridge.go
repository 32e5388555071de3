package tui

import (
	"context"
	"fmt"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/docket-engine/docket/engine"
)

// noticesMsg carries the notices that arrived since the last one, in order.
type noticesMsg []engine.Notice

// approvalMsg asks the UI for an answer; reply takes exactly one.
type approvalMsg struct {
	req   engine.ApprovalRequest
	reply chan<- engine.Answer
}

// approvalGoneMsg withdraws a request whose context ended (interrupt,
// approval time-out) before anyone answered.
type approvalGoneMsg struct{ requestID string }

// Bridge connects the engine to a running program: it is the session's
// Observer and Approver. Build it before the session, Attach the program
// once it exists, and Run its pump for the program's lifetime.
type Bridge struct {
	mu sync.Mutex
	// sendMu keeps batches in order: it is held from taking a batch off
	// the queue until the program has received it.
	sendMu  sync.Mutex
	send    func(tea.Msg)
	queue   []engine.Notice
	wake    chan struct{}
	sem     chan struct{} // one approval overlay at a time, in call order
	dropped bool          // no program attached any more: notices are dropped
}

// NewBridge returns a bridge with no program attached yet.
func NewBridge() *Bridge {
	return &Bridge{wake: make(chan struct{}, 1), sem: make(chan struct{}, 1)}
}

// Attach sets where messages go (tea.Program.Send, or a test's function).
func (b *Bridge) Attach(send func(tea.Msg)) {
	b.mu.Lock()
	b.send = send
	b.mu.Unlock()
}

// Detach stops delivery: later notices are dropped, and approvals wait
// for their context (the caller cancels the turn before it detaches).
func (b *Bridge) Detach() {
	b.mu.Lock()
	b.send, b.dropped, b.queue = nil, true, nil
	b.mu.Unlock()
}

// Notify queues a notice and returns at once: the engine may call it with
// its record lock held, so it never waits for the UI.
func (b *Bridge) Notify(n engine.Notice) {
	b.mu.Lock()
	if !b.dropped {
		b.queue = append(b.queue, n)
	}
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Run delivers queued notices to the program until ctx ends, batching
// what arrived together (streamed text comes in many small deltas) into
// one message, so the UI redraws once per batch.
func (b *Bridge) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.wake:
		}
		if send := b.sender(); send != nil {
			b.flush(send)
		}
	}
}

func (b *Bridge) sender() func(tea.Msg) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.send
}

// Decide shows the request as an overlay and waits for the person's
// answer. It never answers on its own: when ctx ends first (Ctrl-C, the
// approval time-out) it withdraws the overlay and returns ctx's error, so
// the engine records a cancellation or a time-out, never a denial.
func (b *Bridge) Decide(ctx context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
	select {
	case b.sem <- struct{}{}:
	case <-ctx.Done():
		return engine.Answer{}, fmt.Errorf("call %s: %w", req.CallID, ctx.Err())
	}
	defer func() { <-b.sem }()
	send := b.sender()
	if send == nil {
		return engine.Answer{}, fmt.Errorf("call %s: the terminal UI has closed: %w", req.CallID, engine.ErrNoDecision)
	}
	reply := make(chan engine.Answer, 1)
	// Notices sent before the request are delivered first, so the call's
	// line is on screen before its overlay.
	b.flush(send)
	send(approvalMsg{req: req, reply: reply})
	select {
	case ans := <-reply:
		return ans, nil
	case <-ctx.Done():
		send(approvalGoneMsg{requestID: req.RequestID})
		return engine.Answer{}, fmt.Errorf("call %s: %w", req.CallID, ctx.Err())
	}
}

// flush delivers the queued notices now.
func (b *Bridge) flush(send func(tea.Msg)) {
	b.sendMu.Lock()
	defer b.sendMu.Unlock()
	b.mu.Lock()
	batch := b.queue
	b.queue = nil
	b.mu.Unlock()
	if len(batch) > 0 {
		send(noticesMsg(batch))
	}
}
