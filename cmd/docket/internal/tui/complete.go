package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/docket-engine/docket/engine/attach"
	"github.com/docket-engine/docket/events/safetext"
)

// maxCompletions bounds the @ popup.
const maxCompletions = 8

// completion is the @ popup: workspace files matching the reference being
// typed at the end of the input.
type completion struct {
	at      int // byte offset of the @ in the input
	matches []string
	sel     int
	// labels, when set, are what the popup shows for each match (a
	// command's help, a session's start and first prompt).
	labels []string
	// choose, when set, makes this a picker or the / popup: Enter (or
	// Tab) hands it the chosen match instead of completing an @ path.
	choose func(m *Model, match string, enter bool) tea.Cmd
}

// refreshCompletion recomputes the popup after the input changed: the
// slash commands while a command name is typed, else @ paths.
func (m *Model) refreshCompletion() {
	m.comp = nil
	if m.slashPopup() {
		return
	}
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
func (m *Model) completionKey(k tea.KeyMsg) (handled bool, cmd tea.Cmd) {
	c := m.comp
	switch k.Type {
	case tea.KeyUp:
		c.sel = (c.sel + len(c.matches) - 1) % len(c.matches)
	case tea.KeyDown:
		c.sel = (c.sel + 1) % len(c.matches)
	case tea.KeyTab, tea.KeyEnter:
		if c.choose != nil {
			m.comp = nil
			return true, c.choose(m, c.matches[c.sel], k.Type == tea.KeyEnter)
		}
		v := m.input.Value()
		m.input.SetValue(v[:c.at] + attach.Token(c.matches[c.sel]) + " ")
		m.input.CursorEnd()
		m.comp = nil
	case tea.KeyEsc:
		m.comp = nil
	default:
		return false, nil
	}
	return true, nil
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
		if m.comp.labels != nil {
			p = m.comp.labels[i]
		}
		b.WriteString(mark + truncate(safetext.Line(p), m.width-4))
	}
	return m.style(styleDim, b.String())
}
