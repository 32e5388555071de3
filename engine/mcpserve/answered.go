package mcpserve

import (
	"fmt"
	"strings"

	"github.com/docket-engine/docket/events"
)

// AnsweredCall is the outcome of a call that parked and that docket resume
// then answered and ran: the client's next call carries it (CallResult's
// Answered), since the client never saw that call's result.
type AnsweredCall struct {
	CallID string `json:"call_id"`
	// Decision and Source are the call's last decision and who gave it
	// (decisions_flag for docket resume --decisions).
	Decision events.ReviewDecision `json:"decision,omitempty"`
	Source   events.DecisionSource `json:"source,omitempty"`
	// Status is completed, failed or declined; empty when the journal
	// holds no result for the call.
	Status string `json:"status,omitempty"`
	// ExitCode is the last run's exit code, when the call ran.
	ExitCode *int `json:"exit_code,omitempty"`
	// Output is the call's result text as journaled: the text a call's
	// own result carries, bounded by the engine's output limits.
	Output string `json:"output"`
}

// answeredCalls reads the outcome of each of ids from the session's
// records, in the order given.
func answeredCalls(recs []events.Record, ids []string) ([]AnsweredCall, error) {
	out := make([]AnsweredCall, len(ids))
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		out[i].CallID = id
		at[id] = i
	}
	for _, r := range recs {
		i, ok := at[r.CallID]
		if !ok {
			continue
		}
		switch r.Kind {
		case events.KindDecision, events.KindExecOutcome, events.KindToolOutput:
		default:
			continue
		}
		body, err := r.Decode()
		if err != nil {
			return nil, fmt.Errorf("record %d of call %s: %w", r.Seq, r.CallID, err)
		}
		a := &out[i]
		switch v := body.(type) {
		case *events.Decision:
			a.Decision, a.Source = v.Decision, v.Source
		case *events.ExecOutcome:
			ec := v.ExitCode
			a.ExitCode = &ec
		case *events.ToolOutput:
			a.Output = v.Output
			a.Status = "failed"
			if v.Success {
				a.Status = "completed"
			}
		}
	}
	for i := range out {
		if a := &out[i]; a.Status == "failed" && (a.Decision == events.Denied || a.Decision == events.Abort) {
			a.Status = "declined"
		}
	}
	return out, nil
}

// answeredText says the answered calls' outcomes in a few lines, for the
// text content of the result that carries them.
func answeredText(calls []AnsweredCall) string {
	var b strings.Builder
	for _, a := range calls {
		if a.Decision == "" && a.Status == "" {
			fmt.Fprintf(&b, "Parked call %s: the journal holds no decision or result for it (the audit tool shows the session)\n", a.CallID)
			continue
		}
		fmt.Fprintf(&b, "Parked call %s was answered with docket resume: %s by %s", a.CallID, orUnknown(string(a.Decision)), orUnknown(string(a.Source)))
		if a.Status != "" {
			fmt.Fprintf(&b, ", %s", a.Status)
		}
		if a.ExitCode != nil {
			fmt.Fprintf(&b, " (exit %d)", *a.ExitCode)
		}
		if f := fenced(a.Output); f != "" {
			// The output is the command's: fenced, so that none of its
			// lines reads as Docket's.
			b.WriteString("; its output, each line after \"" + strings.TrimSpace(fencePrefix) + "\":\n" + f)
			continue
		}
		b.WriteString("\n")
	}
	return b.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
