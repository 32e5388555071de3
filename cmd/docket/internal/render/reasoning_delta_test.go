package render

import (
	"bytes"
	"testing"

	"github.com/docket-engine/docket/engine"
)

// Streamed reasoning is for live display only: the JSONL stream carries
// the whole reasoning item, never the fragments.
func TestJSONLIgnoresReasoningDeltas(t *testing.T) {
	var out bytes.Buffer
	j := NewJSONL(&out)
	j.Notify(engine.Notice{Type: engine.NoticeTurnStarted, SessionID: "s", TurnID: "turn-1"})
	before := out.Len()
	j.Notify(engine.Notice{Type: engine.NoticeReasoningDelta, SessionID: "s", TurnID: "turn-1", Text: "thinking"})
	if out.Len() != before {
		t.Fatalf("a reasoning delta reached the JSONL stream: %q", out.String()[before:])
	}
}
