package mcpserve

import (
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

func rec(t *testing.T, seq uint64, kind events.RecordKind, callID string, body any) events.Record {
	t.Helper()
	b, err := events.EncodeBody(body)
	if err != nil {
		t.Fatal(err)
	}
	return events.Record{Seq: seq, Kind: kind, CallID: callID, Body: b}
}

// TestAnsweredCalls: each answered call's outcome is its last decision,
// its last run's exit code and its result text; a denial is declined, a
// call the journal has no result for says nothing it does not know, and
// other calls' records are not mixed in.
func TestAnsweredCalls(t *testing.T) {
	recs := []events.Record{
		rec(t, 1, events.KindDecision, "mcp_1", events.Decision{CallID: "mcp_1", Phase: events.PhaseInitial, Decision: events.Approved, Source: events.SourceUser}),
		rec(t, 2, events.KindExecOutcome, "mcp_1", events.ExecOutcome{CallID: "mcp_1", Attempt: 1, ExitCode: 1}),
		rec(t, 3, events.KindDecision, "mcp_1", events.Decision{CallID: "mcp_1", Phase: events.PhaseRetry, Decision: events.Approved, Source: events.SourceFlag}),
		rec(t, 4, events.KindExecOutcome, "mcp_1", events.ExecOutcome{CallID: "mcp_1", Attempt: 2, ExitCode: 0}),
		rec(t, 5, events.KindToolOutput, "mcp_1", events.ToolOutput{CallID: "mcp_1", Output: "ran\n", Success: true}),
		rec(t, 6, events.KindDecision, "mcp_2", events.Decision{CallID: "mcp_2", Decision: events.Denied, Source: events.SourceFlag}),
		rec(t, 7, events.KindToolOutput, "mcp_2", events.ToolOutput{CallID: "mcp_2", Output: "Not run: denied", Success: false}),
		rec(t, 8, events.KindToolOutput, "mcp_9", events.ToolOutput{CallID: "mcp_9", Output: "other", Success: true}),
	}
	got, err := answeredCalls(recs, []string{"mcp_2", "mcp_1", "mcp_3"})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		id, status, output string
		decision           events.ReviewDecision
		source             events.DecisionSource
		exit               int // -1: none
	}{
		{"mcp_2", "declined", "Not run: denied", events.Denied, events.SourceFlag, -1},
		{"mcp_1", "completed", "ran\n", events.Approved, events.SourceFlag, 0},
		{"mcp_3", "", "", "", "", -1},
	} {
		a := got[i]
		if a.CallID != want.id || a.Status != want.status || a.Output != want.output || a.Decision != want.decision || a.Source != want.source ||
			(want.exit < 0) != (a.ExitCode == nil) || (a.ExitCode != nil && *a.ExitCode != want.exit) {
			t.Errorf("answered[%d] = %+v, want %+v", i, a, want)
		}
	}
	text := answeredText(got)
	for _, w := range []string{"Parked call mcp_2 was answered with docket resume: denied by decisions_flag, declined:\nNot run: denied",
		"Parked call mcp_1 was answered with docket resume: approved by decisions_flag, completed (exit 0):\nran\n",
		"Parked call mcp_3: the journal holds no decision or result for it"} {
		if !strings.Contains(text, w) {
			t.Errorf("text does not say %q:\n%s", w, text)
		}
	}
}

// TestAnsweredCallsDamagedRecord: a record that cannot be decoded is an
// error naming it, not a panic or a made-up outcome.
func TestAnsweredCallsDamagedRecord(t *testing.T) {
	recs := []events.Record{{Seq: 4, Kind: events.KindToolOutput, CallID: "mcp_1", Body: []byte{0xc1}}}
	if _, err := answeredCalls(recs, []string{"mcp_1"}); err == nil || !strings.Contains(err.Error(), "record 4 of call mcp_1") {
		t.Fatalf("err = %v, want one naming record 4 of call mcp_1", err)
	}
}
