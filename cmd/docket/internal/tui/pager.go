package tui

import (
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// pager shows long text (/diff, /audit, a whole approval request) on the
// alternate screen; q or Esc closes it.
type pager struct {
	title string
	text  string
	vp    viewport.Model
}

func newPager(title, text string, w, h int) *pager {
	p := &pager{title: title, text: text, vp: viewport.New(w, max(h-2, 1))}
	p.vp.SetContent(wrapTo(text, w))
	return p
}

// resize re-wraps the text for the new width, keeping the reader near
// the same place.
func (p *pager) resize(w, h int) {
	at := p.vp.ScrollPercent()
	p.vp.Width, p.vp.Height = w, max(h-2, 1)
	p.vp.SetContent(wrapTo(p.text, w))
	p.vp.SetYOffset(int(at * float64(max(p.vp.TotalLineCount()-p.vp.Height, 0))))
}

// wrapTo breaks lines wider than the pager: the viewport cuts them at the
// edge, and the end of a long audit or diff line was simply not shown.
func wrapTo(text string, w int) string {
	if w <= 0 {
		return text
	}
	return ansi.Hardwrap(text, w, true)
}

func (p *pager) closes(k tea.KeyMsg) bool {
	switch k.String() {
	case "q", "esc":
		return true
	}
	return false
}

func (p *pager) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	p.vp, cmd = p.vp.Update(msg)
	return cmd
}
