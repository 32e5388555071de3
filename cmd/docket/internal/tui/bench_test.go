package tui

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// playTurn feeds the model one turn's worth of notices, as the engine
// sends them for a prompt with one shell call and a streamed answer, and
// ends the turn; what it prints goes to the scrollback (discarded).
func playTurn(m *Model, n int) {
	id := fmt.Sprintf("c%d", n)
	tr := func(to string) engine.Notice {
		return engine.Notice{Type: engine.NoticeTransition, CallID: id, Transition: &events.Transition{CallID: id, To: to}}
	}
	m.running = true
	m.cancel = func() {}
	for _, batch := range []noticesMsg{
		{tr("sandboxed"), {Type: engine.NoticeCallStarted, CallID: id, Tool: "shell", Command: []string{"ls", "-la"}}},
		{{Type: engine.NoticeCallOutput, CallID: id, Text: "total 8\ndrwxr-xr-x 2 u u 4096 .\ndrwxr-xr-x 9 u u 4096 ..\n"}},
		{tr("done"), {Type: engine.NoticeCallCompleted, CallID: id, Tool: "shell", Status: engine.StatusCompleted}},
		{{Type: engine.NoticeTextDelta, Text: "Here is "}}, {{Type: engine.NoticeTextDelta, Text: "the listing "}},
		{{Type: engine.NoticeTextDelta, Text: fmt.Sprintf("for turn %d.", n)}},
		{{Type: engine.NoticeMessage, Text: fmt.Sprintf("Here is the listing for turn %d.", n)}},
	} {
		_, cmd := m.Update(batch)
		_, _, _ = runAll(cmd) // printing into the scrollback
		_ = m.View()
	}
	_, cmd := m.Update(turnDoneMsg{res: engine.TurnResult{Status: events.TurnCompleted}})
	_, _, _ = runAll(cmd)
}

// BenchmarkKeystroke measures one keystroke's Update and the View that
// renders it, fresh and after 1,000 turns (the inline UI keeps only the
// live part, so the cost should not grow), and reports the heap in use
// after the turns.
func BenchmarkKeystroke(b *testing.B) {
	for _, turns := range []int{0, 1000} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			m := newTestModel(newFake())
			for i := range turns {
				playTurn(m, i)
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			k := key("a")
			for i := 0; b.Loop(); i++ {
				if i%80 == 79 { // a prompt of 80 characters, typed again
					m.input.Reset()
				}
				m.Update(k)
				_ = m.View()
			}
			b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
		})
	}
}

// BenchmarkTurn measures a whole turn's notices through the model.
func BenchmarkTurn(b *testing.B) {
	m := newTestModel(newFake())
	for i := 0; b.Loop(); i++ {
		playTurn(m, i)
	}
}
