package main

import (
	"regexp"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
)

// colourReportBody is the body of a terminal's answer to a colour query
// (OSC 10, 11 or 4: "11;rgb:1c1c/1c1c/1c1c").
var colourReportBody = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(1[0-9]|4;[0-9]+);(rgb|rgba):[0-9a-fA-F/]+$`)
})

// terminalReports drops a terminal's colour report from the chat's key
// input. Bubble Tea asks the terminal for its background colour when the
// process starts (bubbletea's tea_init.go), and termenv gives up on the
// answer when the cursor report it sends along comes back first; the
// colour report then reaches the UI as keys (alt+], the body as typed
// text, alt+\ or ctrl+g), and Enter sent it to the model as a prompt.
// Bubble Tea v1 has no message for it, so the filter recognises the
// sequence: an alt+] is held back until the next message shows whether a
// report body follows.
type terminalReports struct {
	held bool // an alt+] arrived and was held back
	in   bool // a report body was dropped: its terminator goes too
}

// filter is a tea.WithFilter function.
func (r *terminalReports) filter(_ tea.Model, msg tea.Msg) tea.Msg {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return msg
	}
	switch {
	case r.in && (k.String() == "alt+\\" || k.Type == tea.KeyCtrlG):
		r.in = false
		return nil
	case k.Alt && k.Type == tea.KeyRunes && string(k.Runes) == "]":
		r.held, r.in = true, false
		return nil
	case r.held && k.Type == tea.KeyRunes && !k.Alt && colourReportBody().MatchString(string(k.Runes)):
		r.held, r.in = false, true
		return nil
	}
	r.in = false
	// A held alt+] that began no report is bound to nothing in the UI:
	// dropping it loses no keystroke that did anything.
	r.held = false
	return msg
}
