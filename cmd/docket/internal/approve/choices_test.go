package approve

import (
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// The line prompt lists exactly the keys Choices offers, so the terminal
// prompt and the UI overlay offer the same answers.
func TestLinePromptListsExactlyTheChoices(t *testing.T) {
	for _, amend := range []bool{false, true} {
		req := engine.ApprovalRequest{}
		if amend {
			req.ProposedAmendment = []string{"git", "push"}
		}
		text := choices(req)
		var keys []string
		for _, c := range Choices(req) {
			keys = append(keys, c.Key)
			if !strings.Contains(text, "["+c.Key+"] "+c.Label) {
				t.Errorf("amend=%v: the line prompt lacks [%s] %s: %q", amend, c.Key, c.Label, text)
			}
		}
		if want := "(" + strings.Join(keys, "/") + ")"; !strings.Contains(text, want) {
			t.Errorf("amend=%v: the line prompt's keys are not %s: %q", amend, want, text)
		}
	}
}

func TestAnswerFor(t *testing.T) {
	plain := engine.ApprovalRequest{}
	amend := engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{ProposedAmendment: []string{"make"}}}
	cases := []struct {
		name     string
		req      engine.ApprovalRequest
		key, fb  string
		want     events.ReviewDecision
		ok       bool
		feedback string
	}{
		{"y approves", plain, "y", "", events.Approved, true, ""},
		{"s approves for the session", plain, "s", "", events.ApprovedForSession, true, ""},
		{"p without a proposed rule is refused", plain, "p", "", "", false, ""},
		{"p with a proposed rule saves it", amend, "p", "", events.ApprovedExecpolicyAmendment, true, ""},
		{"f denies with feedback", plain, "f", " not that file ", events.Denied, true, "not that file"},
		{"a aborts", plain, "A", "", events.Abort, true, ""},
		{"an unknown key is refused", plain, "x", "", "", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ans, ok := AnswerFor(c.req, c.key, c.fb)
			if ok != c.ok || ans.Decision != c.want || ans.Feedback != c.feedback {
				t.Fatalf("AnswerFor(%q) = %+v, %v", c.key, ans, ok)
			}
			if ok && ans.Source != events.SourceUser {
				t.Fatalf("source %q, want user", ans.Source)
			}
			if c.want == events.ApprovedExecpolicyAmendment && len(ans.Amendment) != 1 {
				t.Fatalf("amendment %v", ans.Amendment)
			}
		})
	}
}
