package engine

import (
	"fmt"
	"strconv"

	"github.com/docket-engine/docket/events"
)

// MaxCallIDBytes bounds a call id: ids key the journal's call index, the
// approval cache and every display of the call, and no provider sends
// anything near this long.
const MaxCallIDBytes = 256

// screened is one tool call of a response with the verdict on its id.
type screened struct {
	pos    int  // index among the response's tool calls, from 0
	call   Call // as the model sent it
	reason string
}

// screenCalls checks the call ids of one response before anything of it
// runs. A call's id keys its state machine, its journal records and its
// output in the conversation, so a call that cannot be told apart from
// another is refused: no id, an id that is not printable or too long, an
// id given to several calls of this response (all of them are refused:
// which one the model meant cannot be known, and their outputs would be
// indistinguishable), or an id an earlier response already used. used
// reports the ids of earlier responses. The verdict depends only on its
// inputs, so resume and replay reach the same one.
func screenCalls(calls []Call, used func(id string) bool) (valid []Call, invalid []screened) {
	count := make(map[string]int, len(calls))
	for _, c := range calls {
		count[c.ID]++
	}
	for i, c := range calls {
		reason := ""
		switch {
		case c.ID == "":
			reason = "it has no call_id"
		case len(c.ID) > MaxCallIDBytes:
			reason = fmt.Sprintf("its call_id is %d bytes long; at most %d are allowed", len(c.ID), MaxCallIDBytes)
		case !printableID(c.ID):
			reason = "its call_id " + strconv.QuoteToASCII(c.ID) + " holds characters other than printable ASCII"
		case count[c.ID] > 1:
			reason = fmt.Sprintf("its call_id %q is given to %d calls of this response", c.ID, count[c.ID])
		case used(c.ID):
			reason = fmt.Sprintf("its call_id %q was already used by an earlier call of this session", c.ID)
		}
		if reason != "" {
			invalid = append(invalid, screened{pos: i, call: c, reason: reason})
			continue
		}
		valid = append(valid, c)
	}
	return valid, invalid
}

// printableID reports whether id is printable ASCII without spaces, the
// alphabet of every provider's call ids.
func printableID(id string) bool {
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

// invalidOutput is what the model is told about a refused call. It names
// the call by position as well as id, since the id may be the problem.
func invalidOutput(sc screened) string {
	return fmt.Sprintf("Invalid call: tool call %d of your response (name %s) was not run: %s. Send it again with a call_id of its own.",
		sc.pos+1, strconv.QuoteToASCII(truncateForModel(sc.call.Name)), sc.reason)
}

// truncateForModel keeps an echoed name short: it came from the model.
func truncateForModel(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// screen refuses the calls of a fresh response whose ids are unusable,
// journaling an invalid_call record for each, and returns the rest. The
// records are durable before any call of the response runs, so a crash
// cannot leave a refused call without its record.
func (t *turn) screen(all []Call) ([]Call, []screened, error) {
	s := t.s
	s.mu.Lock()
	valid, refused := screenCalls(all, func(id string) bool { return s.callIDs[id] })
	for _, c := range valid {
		s.callIDs[c.ID] = true
	}
	s.countSpawnsLocked(valid)
	request := s.requests
	s.mu.Unlock()
	for i, sc := range refused {
		rec := events.InvalidCall{TurnID: t.id, Request: request, Position: sc.pos, CallID: sc.call.ID,
			Name: sc.call.Name, Reason: sc.reason, Output: invalidOutput(sc)}
		add := s.rec.append
		if i == len(refused)-1 {
			add = s.rec.appendDurable
		}
		if _, err := add("", rec); err != nil {
			return nil, nil, err
		}
		s.notify(Notice{Type: NoticeError, TurnID: t.id, CallID: sc.call.ID,
			Text: fmt.Sprintf("refused tool call %d of the model's response: %s", sc.pos+1, sc.reason)})
	}
	return valid, refused, nil
}

// withRefused puts the refused calls' results back among the dispatched
// ones, so outputs reach the conversation in the response's call order.
// all is nil when no screening happened (a resumed turn's calls).
func withRefused(all []Call, refused []screened, results []callResult) []callResult {
	if len(refused) == 0 {
		return results
	}
	out := make([]callResult, 0, len(all))
	next, r := 0, 0
	for i, c := range all {
		if r < len(refused) && refused[r].pos == i {
			out = append(out, callResult{call: c, output: refused[r].output()})
			r++
			continue
		}
		if next < len(results) {
			out = append(out, results[next])
			next++
		}
	}
	return out
}

func (sc screened) output() string { return invalidOutput(sc) }

// restoreScreen is screen for Restore: it reaches the verdicts the live
// session reached (they depend only on the calls and the ids before them)
// and returns the refused calls' outputs by position. It writes nothing.
func (s *Session) restoreScreen(calls []Call) map[int]string {
	valid, refused := screenCalls(calls, func(id string) bool { return s.callIDs[id] })
	for _, c := range valid {
		s.callIDs[c.ID] = true
	}
	s.countSpawnsLocked(valid)
	if len(refused) == 0 {
		return nil
	}
	out := make(map[int]string, len(refused))
	for _, sc := range refused {
		out[sc.pos] = invalidOutput(sc)
	}
	return out
}
