package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// A 200-line paste is a "[Pasted 200 lines]" note in the input and in the
// scrollback's echo; the model gets all of it, and a short paste stays as
// it is.
func TestLongPasteIsCollapsed(t *testing.T) {
	f := newFake()
	m := newTestModel(f)
	var lines []string
	for i := range 200 {
		lines = append(lines, fmt.Sprintf("log line %d", i))
	}
	pasted := strings.Join(lines, "\r") // terminals send a pasted newline as CR
	typeDrawn(m, "explain ")
	press(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(pasted), Paste: true})
	v := m.View()
	if !strings.Contains(v, "› explain [Pasted 200 lines]") || strings.Contains(v, "log line 1") {
		t.Fatalf("the paste is not collapsed in the input:\n%s", v)
	}
	_, cmd := m.Update(key("enter"))
	echoed := make(chan []string, 1)
	go func() { _, p, _ := runAll(cmd); echoed <- p }()
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.prompts) == 1 })
	if want := "explain " + strings.Join(lines, "\n"); f.prompts[0] != want {
		t.Fatalf("the model got %d bytes, want the whole paste (%d bytes)", len(f.prompts[0]), len(want))
	}
	if m.history[len(m.history)-1] != f.prompts[0] {
		t.Fatal("the history does not keep the whole prompt")
	}
	close(f.release)
	if echo := strings.Join(<-echoed, "\n"); !strings.Contains(echo, "› explain [Pasted 200 lines]") || strings.Contains(echo, "log line 1") {
		t.Fatalf("the scrollback echo is not the note: %q", echo)
	}

	m2 := newTestModel(newFake())
	press(m2, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a\rb"), Paste: true})
	if v := m2.View(); !strings.Contains(v, "› a") || !strings.Contains(v, "b") || strings.Contains(v, "Pasted") {
		t.Fatalf("a short paste is not shown as itself:\n%s", v)
	}
}
