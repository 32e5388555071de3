package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/docket-engine/docket/cmd/docket/internal/approve"
	"github.com/docket-engine/docket/engine"
)

// overlay is one approval request on screen. Its choices and the answers
// they give are the line prompt's (approve.Choices, approve.AnswerFor).
type overlay struct {
	req      engine.ApprovalRequest
	reply    chan<- engine.Answer
	feedback *textinput.Model
	// hint is said under the choices after a key that is not one of them.
	hint string
}

func newOverlay(req engine.ApprovalRequest, reply chan<- engine.Answer) *overlay {
	return &overlay{req: req, reply: reply}
}

// overlayKey answers the first overlay: a choice's key answers it (f asks
// for feedback first), d shows the whole request in a pager.
func (m *Model) overlayKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	o := m.overlays[0]
	if o.feedback != nil {
		switch k.Type {
		case tea.KeyEsc:
			o.feedback = nil
			return m, nil
		case tea.KeyEnter:
			return m, m.answer(o, "f", o.feedback.Value())
		}
		ti, cmd := o.feedback.Update(k)
		o.feedback = &ti
		return m, cmd
	}
	key := strings.ToLower(k.String())
	if key == "d" {
		return m, func() tea.Msg {
			return pagerMsg{title: "approval request for call " + o.req.CallID, text: approve.Describe(o.req, m.opts.Color)}
		}
	}
	for _, c := range approve.Choices(o.req) {
		if c.Key != key {
			continue
		}
		if c.AsksFeedback {
			ti := newFeedbackInput()
			ti.Width = max(m.width-len(ti.Prompt)-2, 10)
			o.feedback = &ti
			return m, nil
		}
		return m, m.answer(o, key, "")
	}
	o.hint = "please answer " + choiceKeys(o.req)
	return m, nil
}

// answer sends the person's answer to the waiting engine and takes the
// overlay down.
func (m *Model) answer(o *overlay, key, feedback string) tea.Cmd {
	ans, ok := approve.AnswerFor(o.req, key, feedback)
	if !ok {
		o.hint = "please answer " + choiceKeys(o.req)
		return nil
	}
	o.reply <- ans // buffered, and answered once: the overlay is removed now
	m.overlays = m.overlays[1:]
	return nil
}

func choiceKeys(req engine.ApprovalRequest) string {
	var keys []string
	for _, c := range approve.Choices(req) {
		keys = append(keys, c.Key)
	}
	return strings.Join(keys, ", ")
}
