package tui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/docket-engine/docket/engine"
)

func (f *fakeBackend) Compact(context.Context) (string, error) { return "the summary", nil }

// Esc interrupts a running turn as Ctrl-C does; a second Esc does not
// quit, and Esc while idle does nothing.
func TestEscInterruptsTheTurn(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	if _, cmd := m.Update(key("esc")); cmd != nil {
		if _, _, quit := runAll(cmd); quit {
			t.Fatal("Esc while idle quit")
		}
	}
	typeText(m, "do something long")
	_, cmd := m.Update(key("enter"))
	turnMsgs := make(chan []tea.Msg, 1)
	go func() { msgs, _, _ := runAll(cmd); turnMsgs <- msgs.([]tea.Msg) }()
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.prompts) == 1 })
	_, cmd = m.Update(key("esc"))
	_, printed, quit := runAll(cmd)
	if quit || !strings.Contains(strings.Join(printed, "\n"), "interrupting the turn") {
		t.Fatalf("Esc did not interrupt (quit %v): %q", quit, printed)
	}
	if _, cmd = m.Update(key("esc")); cmd != nil {
		if _, _, quit := runAll(cmd); quit {
			t.Fatal("a second Esc quit")
		}
	}
	done := <-turnMsgs
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.cancelled })
	_, cmd = m.Update(done[0])
	if _, printed, _ = runAll(cmd); !strings.Contains(strings.Join(printed, "\n"), "turn interrupted") {
		t.Fatalf("the interrupt was not reported: %q", printed)
	}
}

// A /compact the person typed is never announced as automatic, even when
// the engine's notice comes after the command's result; one inside a turn
// still is.
func TestManualCompactIsNotAnnouncedAsAutomatic(t *testing.T) {
	m := newTestModel(newFake())
	typeText(m, "/compact")
	_, cmd := m.Update(key("enter"))
	msgs, printed, _ := runAll(cmd)
	for _, msg := range msgs.([]tea.Msg) {
		_, c := m.Update(msg)
		_, p, _ := runAll(c)
		printed = append(printed, p...)
	}
	_, c := m.Update(noticesMsg{{Type: engine.NoticeCompacted, Text: "the summary"}})
	_, p, _ := runAll(c)
	printed = append(printed, p...)
	out := strings.Join(printed, "\n") + m.View()
	if !strings.Contains(out, "conversation compacted") || strings.Contains(out, "automatically") {
		t.Fatalf("manual /compact shown as:\n%s", out)
	}
	m.submitPrompt("next")
	_, c = m.Update(noticesMsg{{Type: engine.NoticeCompacted, Text: "s"}})
	if _, p, _ = runAll(c); !strings.Contains(strings.Join(p, "\n"), "compacted automatically") {
		t.Fatalf("an automatic compaction in a turn is not said: %q", p)
	}
}

// A printed line wider than the screen erases the rest of the row it
// wraps onto: Bubble Tea does not, so the status line's tail stayed behind
// it. The text itself is kept whole, for copying.
func TestLongPrintedLinesEraseTheirWrappedRow(t *testing.T) {
	m := newTestModel(newFake())
	_, cmd := m.quit()
	_, printed, quit := runAll(cmd)
	if !quit || len(printed) == 0 {
		t.Fatalf("quit printed %q (quit %v)", printed, quit)
	}
	hint := "docket chat --resume " + m.info.SessionID
	seen := false
	for _, p := range printed {
		for _, l := range strings.Split(p, "\n") {
			w := ansi.StringWidth(l)
			if w > m.width && w%m.width != 0 && !strings.HasSuffix(l, ansi.EraseLineRight) {
				t.Errorf("a %d-column line on an %d-column screen does not erase its last row: %q", w, m.width, l)
			}
			seen = seen || strings.Contains(l, hint)
		}
	}
	if !seen {
		t.Errorf("the resume hint is not on one line: %q", printed)
	}
	if got := m.fit(strings.Repeat("x", 160)); strings.Contains(got, ansi.EraseLineRight) {
		t.Errorf("a line filling its last row exactly gets an erase, which would take its last character")
	}
}

// A pager wraps long lines instead of cutting them, and again on resize.
func TestPagerWrapsLongLines(t *testing.T) {
	long := strings.Repeat("word ", 30) + "END"
	p := newPager("t", "short\n"+long, 40, 20)
	if v := p.vp.View(); !strings.Contains(v, "END") {
		t.Fatalf("the end of a long line is cut:\n%s", v)
	}
	p.resize(25, 20)
	if v := p.vp.View(); !strings.Contains(v, "END") {
		t.Fatalf("after a resize the end of a long line is cut:\n%s", v)
	}
}

// The pager's screen, against a golden file: a long audit line wraps
// whole within the width instead of being cut at the edge.
func TestPagerGoldenScreen(t *testing.T) {
	m := New(context.Background(), newFake(), Options{Width: 40, Height: 12})
	m.Update(pagerMsg{title: "audit of session 019abcde", text: "call c1  exec  shell\n  command: bash -lc 'go test ./... && go vet ./... && echo all-passed-END'\n  outcome: completed"})
	golden(t, "pager_wrapped.golden", m.View())
}
