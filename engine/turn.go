package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

// TurnResult is how a turn ended.
type TurnResult struct {
	TurnID  string
	Status  events.TurnStatus
	Message string // the model's final message, or why the turn failed
	Usage   events.Usage
	// Parked lists the calls waiting for a decision when Status is parked.
	Parked []string
}

// errAborted is the cancellation cause when the user aborts the turn, so
// calls interrupted by it say so.
var errAborted = errors.New("the user aborted the turn")

// ErrEmptyPrompt is returned for a prompt of only whitespace.
var ErrEmptyPrompt = errors.New("the prompt is empty")

type turn struct {
	s     *Session
	id    string
	usage events.Usage
	gate  *gate
	// abort cancels the calls of the response being dispatched with the
	// user's abort as the cause; set by dispatch before any call starts.
	abort func()
}

// Turn runs one user turn to its end: until the model answers without tool
// calls, the turn fails or aborts, or a call parks.
func (s *Session) Turn(ctx context.Context, prompt string) (TurnResult, error) {
	return s.TurnWithImages(ctx, prompt, nil)
}

// TurnWithImages is Turn with images (data URLs) sent along with the
// prompt. They are journaled with the prompt, so that resume and replay
// send the model the same conversation.
func (s *Session) TurnWithImages(ctx context.Context, prompt string, images []string) (TurnResult, error) {
	return s.TurnWithInput(ctx, TurnInput{Text: prompt, Images: images})
}

// TurnWithInput is Turn with images and attached files (see TurnInput).
func (s *Session) TurnWithInput(ctx context.Context, in TurnInput) (TurnResult, error) {
	if strings.TrimSpace(in.Text) == "" {
		return TurnResult{}, ErrEmptyPrompt
	}
	s.mu.Lock()
	s.turns++
	t := &turn{s: s, id: fmt.Sprintf("turn-%d", s.turns)}
	s.mu.Unlock()
	if _, err := s.rec.append("", events.UserTurn{TurnID: t.id, Text: in.Text, Images: in.Images, Attachments: in.Attachments}); err != nil {
		return TurnResult{}, err
	}
	it := userItem(in.Text, in.Images, in.Attachments)
	s.mu.Lock()
	s.addItemsLocked(it)
	s.prompt = &it
	s.mu.Unlock()
	s.notify(Notice{Type: NoticeTurnStarted, TurnID: t.id})
	return t.loop(ctx, nil)
}

// loop asks the model and dispatches calls until the turn ends. pending,
// when set, is a response whose calls a resumed session must finish first.
func (t *turn) loop(ctx context.Context, pending []Call) (TurnResult, error) {
	s := t.s
	for {
		calls := pending
		pending = nil
		var all []Call
		var refused []screened
		if calls == nil {
			failed, err := t.autoCompact(ctx)
			if err != nil {
				return TurnResult{TurnID: t.id}, err
			}
			if failed != "" {
				return t.end(events.TurnFailed, failed, nil)
			}
			resp, err := t.request(ctx)
			if err != nil {
				return t.end(events.TurnFailed, err.Error(), nil)
			}
			all = callsOf(resp.Items)
			if len(all) == 0 {
				return t.end(events.TurnCompleted, finalMessage(resp.Items), nil)
			}
			if calls, refused, err = t.screen(all); err != nil {
				return TurnResult{TurnID: t.id}, err
			}
		}
		results, err := t.dispatch(ctx, calls)
		if err != nil {
			return TurnResult{TurnID: t.id}, err
		}
		results = withRefused(all, refused, results)
		var parked []string
		aborted := false
		for _, r := range results {
			switch {
			case r.parked && len(r.parkedAs) > 0:
				parked = append(parked, r.parkedAs...)
			case r.parked:
				parked = append(parked, r.call.ID)
			case r.abort:
				aborted = true
			}
		}
		for _, r := range results {
			if !r.parked {
				s.addItems(outputItemOK(r.call, r.output, r.success))
			}
		}
		if len(parked) > 0 {
			for _, id := range parked {
				s.notify(Notice{Type: NoticeParked, TurnID: t.id, CallID: id})
			}
			return t.end(events.TurnParked, "waiting for an approval decision", parked)
		}
		if aborted {
			return t.end(events.TurnAborted, "the user aborted the turn", nil)
		}
		if ctx.Err() != nil {
			_, why := stopCause(ctx)
			return t.end(events.TurnAborted, why, nil)
		}
	}
}

// request sends the conversation to the model. The request record is
// appended before the request leaves and made durable then only if a
// person's words are still pending (recorder.syncBeforeRequest); otherwise
// it rides, with the response, on the next call's write-ahead commit. The
// response is journaled as an input before anything acts on it.
func (t *turn) request(ctx context.Context) (model.Response, error) {
	s := t.s
	s.mu.Lock()
	s.requests++
	n := s.requests
	s.mu.Unlock()
	items, conv := s.view()
	req := model.Request{Model: s.cfg.Session.Model, Instructions: s.cfg.Instructions, Items: items,
		Tools: s.specs, ParallelToolCalls: true, OutputSchema: s.cfg.OutputSchema}
	if _, err := s.rec.append("", events.ModelRequest{TurnID: t.id, Request: n, Digest: s.digest(conv),
		ItemCount: len(req.Items), Model: req.Model}); err != nil {
		return model.Response{}, err
	}
	if err := s.rec.syncBeforeRequest(); err != nil {
		return model.Response{}, err
	}
	s.cfg.Faults.Hit(pointSendingRequest)
	resp, err := s.model.Respond(ctx, req, func(d model.Delta) {
		switch d.Kind {
		case model.DeltaText:
			s.notify(Notice{Type: NoticeTextDelta, TurnID: t.id, Text: d.Text})
		case model.DeltaReasoning:
			s.notify(Notice{Type: NoticeReasoningDelta, TurnID: t.id, Text: d.Text})
		}
	})
	if err != nil {
		if _, aerr := s.rec.append("", events.ModelResponse{TurnID: t.id, Request: n, Error: err.Error()}); aerr != nil {
			return model.Response{}, aerr
		}
		return model.Response{}, fmt.Errorf("model: %w", err)
	}
	resolved := s.resolvePaths(t.id, n, resp.Items)
	if _, err := s.rec.append("", events.ModelResponse{TurnID: t.id, Request: n, ResponseID: resp.ID, Items: resp.Items,
		Usage: resp.Usage, Attempts: resp.Attempts, Resolved: resolved}); err != nil {
		return model.Response{}, err
	}
	s.mu.Lock()
	s.addResolvedLocked(resolved)
	s.mu.Unlock()
	t.usage = t.usage.Add(resp.Usage)
	s.mu.Lock()
	s.addItemsLocked(resp.Items...)
	s.noteUsageLocked(resp.Usage)
	s.mu.Unlock()
	s.warnIfFull(t.id)
	for _, it := range resp.Items {
		switch it.Type {
		case events.ItemMessage:
			s.notify(Notice{Type: NoticeMessage, TurnID: t.id, Text: it.Text})
		case events.ItemReasoning:
			s.notify(Notice{Type: NoticeReasoning, TurnID: t.id, Text: it.Text})
		}
	}
	return resp, nil
}

// digest fingerprints a request (model, instructions, tools and the whole
// conversation, through its running hash) so the journal shows that a
// replay sent the model the same thing.
func (s *Session) digest(conv [32]byte) string {
	h := sha256.New()
	h.Write(s.baseHash[:])
	h.Write(conv[:])
	return hex.EncodeToString(h.Sum(nil))
}

func finalMessage(items []events.Item) string {
	msg := ""
	for _, it := range items {
		if it.Type == events.ItemMessage && it.Role != "user" {
			msg = it.Text
		}
	}
	return msg
}

// end closes the turn with a durable turn_ended record.
func (t *turn) end(status events.TurnStatus, message string, parked []string) (TurnResult, error) {
	s := t.s
	if _, err := s.rec.appendDurable("", events.TurnEnded{TurnID: t.id, Status: status, Message: message, Usage: t.usage}); err != nil {
		return TurnResult{TurnID: t.id}, err
	}
	switch status {
	case events.TurnCompleted:
		s.notify(Notice{Type: NoticeTurnCompleted, TurnID: t.id, Usage: t.usage, Text: message})
	case events.TurnParked:
	default:
		s.notify(Notice{Type: NoticeTurnFailed, TurnID: t.id, Text: message, Usage: t.usage})
	}
	return TurnResult{TurnID: t.id, Status: status, Message: message, Usage: t.usage, Parked: parked}, nil
}

// dispatch runs a response's calls: concurrently when every one of them is
// parallel-safe, otherwise in order. Results come back in call order.
func (t *turn) dispatch(ctx context.Context, calls []Call) ([]callResult, error) {
	t.gate = newGate(len(calls))
	results := make([]callResult, len(calls))
	tctx, cancelCause := context.WithCancelCause(ctx)
	cancel := func() { cancelCause(errAborted) }
	defer cancel()
	t.abort = cancel
	if t.parallel(calls) {
		var wg sync.WaitGroup
		errs := make([]error, len(calls))
		for i, c := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = reserveStack(i)
				results[i], errs[i] = t.settle(tctx, i, c)
				if results[i].abort {
					cancel()
				}
			}()
		}
		wg.Wait()
		return results, errors.Join(errs...)
	}
	for i, c := range calls {
		if tctx.Err() != nil {
			r, err := t.abandon(tctx, c)
			if err != nil {
				return results, err
			}
			results[i] = r
			continue
		}
		r, err := t.settle(tctx, i, c)
		if err != nil {
			return results, err
		}
		results[i] = r
		if r.abort {
			cancel()
		}
	}
	return results, nil
}

func (t *turn) parallel(calls []Call) bool {
	if len(calls) < 2 {
		return false
	}
	for _, c := range calls {
		tool, ok := t.s.registry.Lookup(c.Name)
		if !ok || !tool.ParallelSafe() {
			return false
		}
	}
	return true
}

// settle orchestrates a call and, when the turn was cancelled or aborted
// under it, brings the call to done so nothing is left in flight.
func (t *turn) settle(ctx context.Context, i int, c Call) (callResult, error) {
	r, err := t.orchestrate(ctx, i, c)
	if err == nil || ctx.Err() == nil {
		return r, err
	}
	res, serr := t.abandon(ctx, c)
	if serr != nil {
		return r, errors.Join(err, serr)
	}
	return res, nil
}

// abandon brings a call of an aborted turn to done from whatever state it
// is in, so the conversation still holds an output for every call.
func (t *turn) abandon(ctx context.Context, c Call) (callResult, error) {
	cr := t.newRun(c, 0)
	bg := context.WithoutCancel(ctx)
	cause, why := stopCause(ctx)
	switch cr.m.Current() {
	case states.Done:
		return callResult{call: c, output: "Interrupted: " + why}, nil
	case states.WantsApproval:
		return t.deny(bg, cr, cause, why+" before this call ran", StatusDeclined)
	case states.Denied:
		if err := cr.fire(bg, states.Finish, cause, why); err != nil {
			return callResult{call: c}, err
		}
		return t.output(cr, "Not run: "+why, false, StatusDeclined, -1, "")
	}
	return t.interrupt(bg, cr, cause, why+" while this call was in flight")
}
