package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/docket-engine/docket/engine/attach"
)

// maxCompletions bounds the @ popup.
const maxCompletions = 8

// completion is the @ popup: workspace files matching the reference being
// typed at the end of the input.
type completion struct {
	at      int // byte offset of the @ in the input
	matches []string
	sel     int
}

// refreshCompletion recomputes the popup after the input changed.
func (m *Model) refreshCompletion() {
	m.comp = nil
	c, ok := m.backend.(Completer)
	if !ok {
		return
	}
	q, at, ok := attach.Partial(m.input.Value())
	if !ok {
		return
	}
	if matches := c.Complete(q, maxCompletions); len(matches) > 0 {
		m.comp = &completion{at: at, matches: matches}
	}
}

// completionKey handles a key while the popup is open; handled is false
// for keys that go on to the input.
func (m *Model) completionKey(k tea.KeyMsg) (handled bool) {
	c := m.comp
	switch k.Type {
	case tea.KeyUp:
		c.sel = (c.sel + len(c.matches) - 1) % len(c.matches)
	case tea.KeyDown:
		c.sel = (c.sel + 1) % len(c.matches)
	case tea.KeyTab, tea.KeyEnter:
		v := m.input.Value()
		m.input.SetValue(v[:c.at] + attach.Token(c.matches[c.sel]) + " ")
		m.input.CursorEnd()
		m.comp = nil
	case tea.KeyEsc:
		m.comp = nil
	default:
		return false
	}
	return true
}

func (m *Model) viewCompletion() string {
	var b strings.Builder
	for i, p := range m.comp.matches {
		if i > 0 {
			b.WriteString("\n")
		}
		mark := "  "
		if i == m.comp.sel {
			mark = "› "
		}
		b.WriteString(mark + truncate(p, m.width-4))
	}
	return m.style(styleDim, b.String())
}
