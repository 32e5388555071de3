package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
)

type compactingFake struct{ *fakeBackend }

func (compactingFake) Compact(context.Context) (string, error) { return "the summary", nil }

// TestManualCompactIsNotAnnouncedAsAutomatic: the engine's compaction
// notice during /compact is the user's own compaction; only one the
// engine started by itself says "automatically".
func TestManualCompactIsNotAnnouncedAsAutomatic(t *testing.T) {
	m := newTestModel(compactingFake{newFake()})
	typeText(m, "/compact")
	m.Update(key("enter"))
	_, cmd := m.Update(noticesMsg{{Type: engine.NoticeCompacted, Text: "the summary"}})
	_, printed, _ := runAll(cmd)
	if v := m.View() + strings.Join(printed, "\n"); strings.Contains(v, "automatically") {
		t.Fatalf("a manual /compact is announced as automatic:\n%s", v)
	}
	_, cmd = m.Update(compactedMsg{summary: "the summary"})
	_, printed, _ = runAll(cmd)
	if len(printed) != 1 || !strings.Contains(printed[0], "conversation compacted") {
		t.Fatalf("the /compact did not say it compacted: %q", printed)
	}
	_, cmd = m.Update(noticesMsg{{Type: engine.NoticeCompacted, Text: "later"}})
	_, printed, _ = runAll(cmd)
	if v := m.View() + strings.Join(printed, "\n"); !strings.Contains(v, "compacted automatically") {
		t.Fatalf("an automatic compaction after it is not said:\n%s", v)
	}
}
