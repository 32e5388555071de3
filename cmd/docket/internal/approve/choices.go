package approve

import (
	"strings"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
)

// Choice is one answer a person can give to an approval request. The line
// prompt (Terminal) and the interactive UI's overlay both offer exactly
// Choices and turn a key into an answer with AnswerFor, so the two cannot
// drift apart.
type Choice struct {
	Key   string // what to type: y, s, p, n, f, a
	Label string // what it does, for the list of choices
	// Decision is what the key records.
	Decision events.ReviewDecision
	// AsksFeedback: the key denies and asks what to tell the model.
	AsksFeedback bool
}

// Choices returns the answers offered for req, in the order the prompt
// lists them: "p" only when the request proposes a prefix rule.
func Choices(req engine.ApprovalRequest) []Choice {
	if q := req.Network; q != nil {
		// A running command waits on the answer: no feedback to the model
		// and no abort, only the host's fate. The host is the sandboxed
		// command's (a SOCKS5 name may hold any byte): shown safe, as the
		// prompt's network line shows it.
		host := safetext.Line(q.Host)
		return []Choice{
			{Key: "y", Label: "allow this connection", Decision: events.Approved},
			{Key: "s", Label: "allow " + host + " for this session", Decision: events.ApprovedForSession},
			{Key: "p", Label: "always allow " + host + " (saved to the profile's domains)", Decision: events.ApprovedExecpolicyAmendment},
			{Key: "n", Label: "deny", Decision: events.Denied},
		}
	}
	out := []Choice{
		{Key: "y", Label: "approve", Decision: events.Approved},
		{Key: "s", Label: "approve for this session", Decision: events.ApprovedForSession},
	}
	if len(req.ProposedAmendment) > 0 {
		out = append(out, Choice{Key: "p", Label: "approve and save the rule", Decision: events.ApprovedExecpolicyAmendment})
	}
	return append(out,
		Choice{Key: "n", Label: "deny", Decision: events.Denied},
		Choice{Key: "f", Label: "deny and tell the model why", Decision: events.Denied, AsksFeedback: true},
		Choice{Key: "a", Label: "abort the turn", Decision: events.Abort},
	)
}

// AnswerFor is the answer a person gives to req by typing key (y, s, p,
// n, f, a, or the long forms yes, session, no, abort), with feedback for a
// denial. ok is false for a key the request does not offer. The source is
// the user: only a person's keystroke may reach here.
func AnswerFor(req engine.ApprovalRequest, key, feedback string) (engine.Answer, bool) {
	typed := strings.ToLower(strings.TrimSpace(key))
	d := decisionFor(typed)
	if req.Network != nil {
		if d == "" || d == events.Abort || typed == "f" {
			return engine.Answer{}, false
		}
		return engine.Answer{Decision: d, Source: events.SourceUser}, true
	}
	if d == "" || (d == events.ApprovedExecpolicyAmendment && len(req.ProposedAmendment) == 0) {
		return engine.Answer{}, false
	}
	ans := engine.Answer{Decision: d, Source: events.SourceUser}
	if d == events.Denied {
		ans.Feedback = strings.TrimSpace(feedback)
	}
	if d == events.ApprovedExecpolicyAmendment {
		ans.Amendment = append([]string(nil), req.ProposedAmendment...)
	}
	return ans, true
}

// Describe renders req as the line prompt shows it, before the choices:
// call, exact argv (escaped), cwd, the reason labelled with who gave it,
// whether a yes means no sandbox, the patch's diff and the proposed rule.
func Describe(req engine.ApprovalRequest, color bool) string { return prompt(req, color) }
