package session

import (
	"context"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/script"
)

// TestAResumedSubagentsScriptGoesOnFromItsNextLines: a resumed child's
// scripted model skips what its journal used of both kinds, as a resumed
// session's does (engine.ScriptLinesUsed): its next compaction takes the
// second compact line, not the first again.
func TestAResumedSubagentsScriptGoesOnFromItsNextLines(t *testing.T) {
	sm, err := script.Parse("script", []byte(`{"agent":"a","output":[{"type":"message","content":"first"}]}
{"agent":"a","output":[{"type":"message","content":"second"}]}
{"agent":"a","compact":true,"output":[{"type":"message","content":"summary one"}]}
{"agent":"a","compact":true,"output":[{"type":"message","content":"summary two"}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	h := &agentHost{model: sm, script: sm}
	m, err := h.Model("a", engine.ScriptUse{Responses: 1, Compactions: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		purpose model.Purpose
		want    string
	}{{model.PurposeCompact, "summary two"}, {"", "second"}} {
		r, err := m.Respond(context.Background(), model.Request{Purpose: tc.purpose}, nil)
		if err != nil || len(r.Items) == 0 || r.Items[0].Text != tc.want {
			t.Errorf("purpose %q: %+v, %v; want %q", tc.purpose, r.Items, err, tc.want)
		}
	}
}
