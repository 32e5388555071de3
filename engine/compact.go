package engine

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/docket-engine/docket/engine/ctxwindow"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// CompactPrompt is the instruction appended to the conversation when the
// model is asked to summarise it.
const CompactPrompt = `You are performing a context checkpoint: the conversation so far will be replaced by your summary, and the work continues from it alone. Write a handoff summary for whoever continues the task. Include:
- the user's request and any constraints or preferences they gave;
- what has been done so far, with the key decisions and why;
- the state of the files and commands involved (paths, names, results that matter);
- what remains to be done, as clear next steps.
Be concise and structured. Do not call tools.`

// SummaryPrefix opens the user message that replaces a compacted
// conversation, so the model knows the summary is history, not a request.
const SummaryPrefix = "The conversation so far was compacted to save context. This is the summary of it, written by the model for itself; continue the work from it:\n\n"

// ErrNothingToCompact is returned by Compact for an empty conversation or
// one that is already only a summary.
var ErrNothingToCompact = errors.New("there is nothing to compact")

// ErrTurnPending is returned by Compact while the session has a parked or
// interrupted turn to finish: its calls' outputs are not yet in the
// conversation.
var ErrTurnPending = errors.New("the session has an unfinished turn; finish it before compacting")

// CompactError is a compaction the model could not do (an error, or no
// summary): it is journaled, and the conversation is left as it was.
type CompactError struct {
	Trigger string
	Err     error
}

func (e *CompactError) Error() string {
	return fmt.Sprintf("%s compaction failed: %v", e.Trigger, e.Err)
}

// Unwrap returns the model's error.
func (e *CompactError) Unwrap() error { return e.Err }

// CompactResult says what a compaction did.
type CompactResult struct {
	Summary      string
	Replaced     int   // conversation items the summary replaced
	TokensBefore int64 // context size before
	TokensAfter  int64 // context size after (an estimate)
	Usage        events.Usage
}

// Compact asks the model to summarise the conversation and replaces the
// conversation with the summary (the /compact command); an automatic
// compaction also keeps the prompt of the turn under way, before the
// summary, when it is small. The summary is
// journaled as a compaction record before the conversation changes. It
// MUST NOT be called while a turn of the session runs. A model failure is
// a *CompactError and leaves the conversation as it was.
func (s *Session) Compact(ctx context.Context) (CompactResult, error) {
	if s.pending != nil {
		return CompactResult{}, ErrTurnPending
	}
	s.mu.Lock()
	turnID := ""
	if s.turns > 0 {
		turnID = fmt.Sprintf("turn-%d", s.turns)
	}
	s.mu.Unlock()
	return s.compact(ctx, turnID, events.CompactManual)
}

// keepPrompt decides whether a compaction keeps the prompt of the turn
// under way before the summary, as Codex keeps the user's recent
// messages: an automatic one does, when the prompt is small next to the
// limit (at most a quarter of it), so that the compacted conversation is
// well under the limit again.
func (s *Session) keepPromptLocked(trigger string) bool {
	if trigger != events.CompactAuto || s.prompt == nil {
		return false
	}
	return ctxwindow.EstimateItems([]events.Item{*s.prompt}) <= s.cfg.Session.AutoCompactTokenLimit/4
}

// compactable reports whether compacting would shrink the conversation:
// it holds more than what would replace it.
func (s *Session) compactable(trigger string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 1
	if s.keepPromptLocked(trigger) {
		n++
	}
	if s.permissions != nil {
		n++
	}
	return len(s.items) > n
}

func (s *Session) compact(ctx context.Context, turnID, trigger string) (CompactResult, error) {
	if !s.compactable(trigger) {
		return CompactResult{}, ErrNothingToCompact
	}
	before := s.ContextStatus().Used
	items, conv := s.view()
	req := model.Request{Model: s.cfg.Session.Model, Instructions: s.cfg.Instructions, Purpose: model.PurposeCompact,
		Items: append(items, events.Item{Type: events.ItemMessage, Role: "user", Text: CompactPrompt})}
	m := s.cfg.Compactor
	if m == nil {
		m = s.model
	}
	resp, err := m.Respond(ctx, req, nil)
	summary := strings.TrimSpace(finalMessage(resp.Items))
	if err == nil && summary == "" {
		err = errors.New("the model returned no summary")
	}
	rec := events.Compaction{TurnID: turnID, Trigger: trigger, Replaced: len(items),
		ReplacedDigest: hex.EncodeToString(conv[:]), TokensBefore: before, Usage: resp.Usage}
	if err != nil {
		rec.Error, rec.Usage = err.Error(), events.Usage{}
		if _, aerr := s.rec.appendDurable("", rec); aerr != nil {
			return CompactResult{}, aerr
		}
		return CompactResult{}, &CompactError{Trigger: trigger, Err: err}
	}
	rec.Summary = summary
	s.mu.Lock()
	rec.KeptPrompt = s.keepPromptLocked(trigger)
	s.mu.Unlock()
	if _, err := s.rec.appendDurable("", rec); err != nil {
		return CompactResult{}, err
	}
	s.cfg.Faults.Hit(pointCompacted)
	s.mu.Lock()
	s.replaceLocked(summary, rec.KeptPrompt)
	after := s.contextStatusLocked()
	s.mu.Unlock()
	s.notify(Notice{Type: NoticeCompacted, TurnID: turnID, Text: summary, Context: &after, Usage: resp.Usage})
	return CompactResult{Summary: summary, Replaced: len(items), TokensBefore: before, TokensAfter: after.Used, Usage: resp.Usage}, nil
}

// replaceLocked replaces the conversation with the last policy change's
// message (so the model still knows the policy in force, which the
// instructions do not name), then the summary message (after the turn's
// prompt when kept), and starts its running hash afresh; the context size
// is then an estimate until the next response reports usage.
func (s *Session) replaceLocked(summary string, keptPrompt bool) {
	s.items, s.itemTokens, s.markTokens = nil, 0, 0
	s.convHash = [32]byte{}
	if s.permissions != nil {
		s.addItemsLocked(*s.permissions)
	}
	if keptPrompt && s.prompt != nil {
		s.addItemsLocked(*s.prompt)
	}
	s.addItemsLocked(SummaryItem(summary))
	s.usageOK, s.lastUsed, s.usageMark, s.warned = false, 0, 0, false
	s.compactFloor = s.contextStatusLocked().Used
}

// wantsAutoCompact reports whether the context has reached the
// auto-compact limit and a compaction can bring it under: not when the
// last compaction already left it at the limit (instructions or a kept
// prompt that big), which would otherwise compact before every request.
func (s *Session) wantsAutoCompact() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.contextStatusLocked()
	return st.ShouldCompact() && s.compactFloor < st.AutoCompactLimit
}

// pointCompacted is the fault point right after a compaction record is
// durable, before the conversation in memory changes.
const pointCompacted = "after:compaction"

// SummaryItem is the user message that replaces a compacted conversation.
func SummaryItem(summary string) events.Item {
	return events.Item{Type: events.ItemMessage, Role: "user", Text: SummaryPrefix + summary}
}

// autoCompact compacts before a model request when the context has reached
// the configured limit. A failed compaction ends the turn (it is
// journaled); only a journal error is returned as an error.
func (t *turn) autoCompact(ctx context.Context) (failed string, err error) {
	s := t.s
	if !s.wantsAutoCompact() || !s.compactable(events.CompactAuto) {
		return "", nil
	}
	_, err = s.compact(ctx, t.id, events.CompactAuto)
	var ce *CompactError
	if errors.As(err, &ce) {
		return ce.Error(), nil
	}
	return "", err
}
