package tui

import (
	"fmt"
	"strings"
)

// A paste longer than these is collapsed, as Codex does: the input shows
// a "[Pasted N lines]" note in its place, the scrollback echoes the note,
// and the model receives the whole text.
const (
	pasteMaxLines = 10
	pasteMaxChars = 1000
)

// paste is one collapsed paste: the note standing for it in the input,
// and its text.
type paste struct{ note, text string }

// collapsePaste returns what the input gets for pasted text: the text
// itself when it is short, otherwise a note remembered in m.pastes.
func (m *Model) collapsePaste(text string) string {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	lines := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	if lines <= pasteMaxLines && len(text) <= pasteMaxChars {
		return text
	}
	note := fmt.Sprintf("[Pasted %d lines]", lines)
	if lines <= pasteMaxLines {
		note = fmt.Sprintf("[Pasted %d chars]", len(text))
	}
	base := note
	for i := 2; m.hasPaste(note); i++ {
		note = fmt.Sprintf("%s #%d]", strings.TrimSuffix(base, "]"), i)
	}
	m.pastes = append(m.pastes, paste{note: note, text: text})
	return note
}

func (m *Model) hasPaste(note string) bool {
	for _, p := range m.pastes {
		if p.note == note {
			return true
		}
	}
	return false
}

// expandPastes puts the pasted texts back in place of their notes (a note
// the person edited is left as typed). The notes are kept for the
// session: a prompt queued during a turn is expanded when it is sent.
func (m *Model) expandPastes(text string) string {
	for _, p := range m.pastes {
		text = strings.Replace(text, p.note, p.text, 1)
	}
	return text
}
