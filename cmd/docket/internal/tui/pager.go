package tui

import (
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// pager shows long text (/diff, /audit, a whole approval request) on the
// alternate screen; q or Esc closes it.
type pager struct {
	title string
	vp    viewport.Model
}

func newPager(title, text string, w, h int) *pager {
	p := &pager{title: title, vp: viewport.New(w, max(h-2, 1))}
	p.vp.SetContent(text)
	return p
}

func (p *pager) resize(w, h int) {
	p.vp.Width, p.vp.Height = w, max(h-2, 1)
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
