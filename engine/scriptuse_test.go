package engine_test

import (
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/events"
)

// TestScriptLinesUsedIsOneRuleForSessionsAndSubagents: what a journal took
// from a scripted model counts the model's responses, not Docket's own,
// and the compactions, each of which took a compact line. A resumed
// subagent used to count every model_response and no compaction, so a
// child that compacted took its first compact line again, and one with
// Docket's own responses skipped model lines it never used.
func TestScriptLinesUsedIsOneRuleForSessionsAndSubagents(t *testing.T) {
	at := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	var l enginetest.MemLog
	for _, body := range []any{
		events.SessionStarted{SessionID: "s"},
		events.ModelResponse{TurnID: "t1", Request: 1, ResponseID: "resp-1"},
		events.ModelResponse{TurnID: "t1", Request: 2, ResponseID: engine.OwnResponsePrefix + "dispatch"},
		events.Compaction{TurnID: "t1", Trigger: "auto", Summary: "so far"},
		events.ModelResponse{TurnID: "t2", Request: 1, ResponseID: "resp-2"},
	} {
		if _, err := l.Append(at, "", body); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := engine.ScriptLinesUsed(l.Records()), (engine.ScriptUse{Responses: 2, Compactions: 1}); got != want {
		t.Fatalf("ScriptLinesUsed = %+v, want %+v", got, want)
	}
}
