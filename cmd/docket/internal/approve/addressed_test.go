package approve

import (
	"context"
	"errors"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

func TestAddressedAnswersGoToTheirCall(t *testing.T) {
	ask := func(agent, call string) engine.ApprovalRequest {
		r := engine.ApprovalRequest{Agent: agent}
		r.CallID = call
		return r
	}
	for _, tc := range []struct {
		name string
		list string
		asks []engine.ApprovalRequest
		want []events.ReviewDecision // "" = no answer (parks)
	}{
		{"positional answers in asking order", "approved,denied", []engine.ApprovalRequest{ask("", "c1"), ask("w", "c1")},
			[]events.ReviewDecision{events.Approved, events.Denied}},
		{"a subagent's call by NAME/CALL_ID, whatever the order", "b/y1=denied,a/x1=approved", []engine.ApprovalRequest{ask("a", "x1"), ask("b", "y1")},
			[]events.ReviewDecision{events.Approved, events.Denied}},
		{"the session's own call by CALL_ID", "denied,c2=approved", []engine.ApprovalRequest{ask("", "c2"), ask("", "c1")},
			[]events.ReviewDecision{events.Approved, events.Denied}},
		{"an addressed answer is not taken by another call", "w/c1=approved", []engine.ApprovalRequest{ask("", "c1"), ask("w", "c1")},
			[]events.ReviewDecision{"", events.Approved}},
		{"nested subagents by their path", "a/b/z=abort", []engine.ApprovalRequest{ask("a/b", "z")},
			[]events.ReviewDecision{events.Abort}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, err := ParseAnswers(tc.list)
			if err != nil {
				t.Fatal(err)
			}
			f := NewAddressedFlags(list)
			for i, req := range tc.asks {
				ans, err := f.Decide(context.Background(), req)
				if tc.want[i] == "" {
					if !errors.Is(err, engine.ErrNoDecision) {
						t.Errorf("ask %d: %v %v, want no decision", i, ans, err)
					}
					continue
				}
				if err != nil || ans.Decision != tc.want[i] || ans.Source != events.SourceFlag {
					t.Errorf("ask %d (%s/%s): %+v %v, want %s from the flag", i, req.Agent, req.CallID, ans, err, tc.want[i])
				}
			}
		})
	}
}

func TestParseAnswersRefusesBadItems(t *testing.T) {
	for _, list := range []string{"=approved", "a b=approved", "w/c1=aproved", "approved,,denied"} {
		if _, err := ParseAnswers(list); err == nil {
			t.Errorf("ParseAnswers(%q) accepted it", list)
		}
	}
	var de *DecisionError
	if _, err := ParseAnswers("w/c1=aproved"); !errors.As(err, &de) || de.Suggestion != "approved" {
		t.Errorf("a misspelt addressed decision: %v, want a suggestion of approved", err)
	}
}
