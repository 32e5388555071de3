package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// press updates the model and draws it, as the program does after every
// message (the textarea scrolls by what it last drew).
func press(m *Model, msgs ...tea.Msg) {
	for _, msg := range msgs {
		m.Update(msg)
		m.View()
	}
}

func typeDrawn(m *Model, s string) {
	for _, r := range s {
		press(m, key(string(r)))
	}
}

// Every line of a multi-line prompt stays on screen: typed with Alt-Enter
// or Ctrl-J, pasted, recalled from the history, or one long line wrapped.
func TestMultiLineInputKeepsItsFirstLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input func(m *Model)
		shows []string
	}{
		{"alt-enter", func(m *Model) {
			typeDrawn(m, "first")
			press(m, tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
			typeDrawn(m, "second")
		}, []string{"› first", "second"}},
		{"ctrl-j", func(m *Model) {
			typeDrawn(m, "first")
			press(m, tea.KeyMsg{Type: tea.KeyCtrlJ})
			typeDrawn(m, "second")
			press(m, tea.KeyMsg{Type: tea.KeyCtrlJ})
			typeDrawn(m, "third")
		}, []string{"› first", "second", "third"}},
		{"paste", func(m *Model) {
			press(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("first\nsecond"), Paste: true})
		}, []string{"› first", "second"}},
		{"history", func(m *Model) {
			m.history = []string{"first\nsecond\nthird"}
			m.historyPos = 1
			press(m, key("up"))
		}, []string{"› first", "second", "third"}},
		{"wrapped line", func(m *Model) {
			typeDrawn(m, "first "+strings.Repeat("x", 100)+" last")
		}, []string{"› first", "last"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestModel(newFake())
			m.View()
			tc.input(m)
			v := m.View()
			for _, s := range tc.shows {
				if !strings.Contains(v, s) {
					t.Errorf("input box lacks %q:\n%s", s, v)
				}
			}
			if m.running {
				t.Errorf("the first line was sent as a prompt")
			}
		})
	}
}
