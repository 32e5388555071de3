package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/docket-engine/docket/events/safetext"
)

// maxTranscriptEntries bounds what a resume prints of the earlier
// conversation: its end, with a count of what is left out.
const maxTranscriptEntries = 60

// printTranscript prints the current session's recorded conversation to
// the scrollback; nothing for a new session or a backend that cannot.
func (m *Model) printTranscript() tea.Cmd {
	t, ok := m.backend.(Transcripter)
	if !ok {
		return nil
	}
	entries, err := t.Transcript()
	if err != nil {
		return m.print(m.renderError("the earlier conversation cannot be shown: " + err.Error()))
	}
	if len(entries) == 0 {
		return nil
	}
	var parts []string
	if cut := len(entries) - maxTranscriptEntries; cut > 0 {
		parts = append(parts, m.renderInfo(fmt.Sprintf("%d earlier entries not shown; /audit has them all", cut)))
		entries = entries[cut:]
	}
	for _, e := range entries {
		switch e.Kind {
		case EntryUser:
			parts = append(parts, m.renderUser(shortPrompt(e.Text)))
		case EntryAssistant:
			parts = append(parts, m.md.render(m.safeText(e.Text), m.width))
		case EntryCall:
			mark, style := "✓", styleDim
			if e.Failed {
				mark, style = "✗", styleError
			}
			parts = append(parts, m.style(style, mark+" "+safetext.Fold(safetext.Line(e.Text), max(m.width-4, 20))))
		default:
			parts = append(parts, m.renderInfo(e.Text))
		}
	}
	return m.print(strings.Join(parts, "\n") + "\n" + m.renderInfo("the conversation goes on from here"))
}

// shortPrompt cuts a long recorded prompt (a paste) to its first lines
// and says how many more there were.
func shortPrompt(p string) string {
	lines := strings.Split(p, "\n")
	if len(lines) <= pasteMaxLines {
		return p
	}
	return strings.Join(lines[:pasteMaxLines], "\n") + fmt.Sprintf("\n[… %d more lines]", len(lines)-pasteMaxLines)
}
