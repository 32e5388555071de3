package main

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestTerminalReportsAreDroppedAndKeysKept(t *testing.T) {
	runes := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	altBracket := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("]"), Alt: true}
	altBackslash := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(`\`), Alt: true}
	ctrlG := tea.KeyMsg{Type: tea.KeyCtrlG}
	for _, tc := range []struct {
		name string
		in   []tea.Msg
		want []string // the keys that get through
	}{
		{"a background report ended by ST", []tea.Msg{altBracket, runes("11;rgb:1c1c/1c1c/1c1c"), altBackslash, runes("x")}, []string{"x"}},
		{"a foreground report ended by BEL", []tea.Msg{altBracket, runes("10;rgb:ffff/ffff/ffff"), ctrlG}, nil},
		{"a palette report", []tea.Msg{altBracket, runes("4;1;rgb:cdcd/0000/0000"), altBackslash}, nil},
		{"typed text is kept", []tea.Msg{runes("11;rgb:1c1c/1c1c/1c1c"), tea.KeyMsg{Type: tea.KeyEnter}}, []string{"11;rgb:1c1c/1c1c/1c1c", "enter"}},
		{"alt+] before ordinary text keeps the text", []tea.Msg{altBracket, runes("hello")}, []string{"hello"}},
		{"alt+\\ outside a report is kept", []tea.Msg{altBackslash}, []string{`alt+\`}},
		{"ctrl+g outside a report is kept", []tea.Msg{ctrlG}, []string{"ctrl+g"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r terminalReports
			var got []string
			for _, m := range tc.in {
				if out := r.filter(nil, m); out != nil {
					got = append(got, out.(tea.KeyMsg).String())
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %q, want %q", got, tc.want)
				}
			}
		})
	}
}
