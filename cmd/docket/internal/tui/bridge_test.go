package tui

import (
	"context"
	"errors"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// sink collects what the bridge sends.
type sink struct {
	mu   sync.Mutex
	msgs []tea.Msg
	got  chan struct{}
}

func newSink() *sink { return &sink{got: make(chan struct{}, 1000)} }

func (s *sink) send(m tea.Msg) {
	s.mu.Lock()
	s.msgs = append(s.msgs, m)
	s.mu.Unlock()
	s.got <- struct{}{}
}

// Notices from several goroutines all arrive, each goroutine's in order.
func TestBridgeDeliversNoticesInOrder(t *testing.T) {
	b, s := NewBridge(), newSink()
	b.Attach(s.send)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go b.Run(ctx)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 250 {
				b.Notify(engine.Notice{Type: engine.NoticeTextDelta, CallID: string(rune('a' + g)), Seq: uint64(i)})
			}
		}()
	}
	wg.Wait()
	b.Notify(engine.Notice{Type: engine.NoticeTurnCompleted})
	next := map[string]uint64{}
	for seen, total := 0, 0; total < 1001; seen++ {
		<-s.got
		s.mu.Lock()
		batch := s.msgs[seen].(noticesMsg)
		s.mu.Unlock()
		for _, n := range batch {
			total++
			if n.Type != engine.NoticeTextDelta {
				continue
			}
			if n.Seq != next[n.CallID] {
				t.Fatalf("goroutine %s: notice %d arrived when %d was due", n.CallID, n.Seq, next[n.CallID])
			}
			next[n.CallID]++
		}
	}
}

// Decide waits for the overlay's answer; when its context ends first it
// withdraws the request and returns the context's error, never an answer.
func TestBridgeDecide(t *testing.T) {
	b, s := NewBridge(), newSink()
	b.Attach(s.send)
	req := engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{CallID: "c1", RequestID: "r1"}}

	go func() {
		<-s.got
		s.mu.Lock()
		m := s.msgs[len(s.msgs)-1].(approvalMsg)
		s.mu.Unlock()
		m.reply <- engine.Answer{Decision: events.Approved, Source: events.SourceUser}
	}()
	ans, err := b.Decide(context.Background(), req)
	if err != nil || ans.Decision != events.Approved {
		t.Fatalf("Decide = %+v, %v", ans, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-s.got; cancel() }()
	_, err = b.Decide(ctx, req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled Decide returned %v, want context.Canceled", err)
	}
	<-s.got
	s.mu.Lock()
	last := s.msgs[len(s.msgs)-1]
	s.mu.Unlock()
	if g, ok := last.(approvalGoneMsg); !ok || g.requestID != "r1" {
		t.Fatalf("no withdrawal after the cancel: %#v", last)
	}

	b.Detach()
	if _, err := b.Decide(context.Background(), req); !errors.Is(err, engine.ErrNoDecision) {
		t.Fatalf("Decide with the UI gone returned %v, want ErrNoDecision", err)
	}
}
