package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/docket-engine/docket/cmd/docket/internal/approve"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
	"github.com/docket-engine/docket/states"
)

// Styles; plain when colour is off (lipgloss then emits no escapes).
var (
	styleDim    = lipgloss.NewStyle().Faint(true)
	styleBold   = lipgloss.NewStyle().Bold(true)
	styleError  = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	styleWarn   = lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true)
	styleUser   = lipgloss.NewStyle().Foreground(lipgloss.Color("6")).Bold(true)
	styleBorder = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
)

// View draws the live part: the turn in progress, the approval overlay,
// the input and the status line. Finished blocks are in the scrollback.
func (m *Model) View() string {
	if m.pager != nil {
		return m.viewPager()
	}
	var parts []string
	for _, b := range m.blocks {
		parts = append(parts, m.renderBlock(b))
	}
	if len(m.overlays) > 0 {
		parts = append(parts, m.viewOverlay(m.overlays[0]))
	} else if !m.quitting {
		parts = append(parts, m.input.View())
		if m.comp != nil {
			parts = append(parts, m.viewCompletion())
		}
	}
	if m.quitting {
		return trimLines(strings.Join(parts, "\n"))
	}
	parts = append(parts, m.statusLine())
	return trimLines(strings.Join(parts, "\n"))
}

// trimLines drops the spaces the textarea pads its lines with to the full
// width. A terminal that reflows its rows on resize (VTE, kitty, iTerm2)
// kept those spaces, so after narrowing the window the input line took two
// rows, Bubble Tea's renderer moved up over one, and the prompt was drawn
// again under its old copy.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

func (m *Model) style(s lipgloss.Style, text string) string {
	if !m.opts.Color {
		return text
	}
	return s.Render(text)
}

// renderBlock draws one block. Everything the model or a command wrote
// goes through safetext, so none of it can act on the terminal.
func (m *Model) renderBlock(b *block) string {
	switch b.kind {
	case blockUser:
		return m.renderUser(b.text)
	case blockAssistant:
		if !b.finished {
			return m.safeText(b.text)
		}
		return m.md.render(m.safeText(b.text), m.width)
	case blockReasoning:
		return m.style(styleDim, "thinking: "+safetext.Line(b.text))
	case blockCall:
		return m.renderCall(b.call)
	case blockError:
		return m.renderError(b.text)
	}
	return m.renderInfo(b.text)
}

// safeText makes multi-line text safe line by line. Tabs are expanded
// first: code and patches are indented with them, and Line would show
// each as `\t`.
func (m *Model) safeText(s string) string {
	lines := strings.Split(safetext.ExpandTabs(s, 0), "\n")
	for i, l := range lines {
		lines[i] = safetext.Line(l)
	}
	return strings.Join(lines, "\n")
}

func (m *Model) renderUser(text string) string {
	return m.style(styleUser, "› ") + m.safeText(text)
}

func (m *Model) renderInfo(text string) string {
	return m.style(styleDim, "• "+strings.ReplaceAll(m.safeText(text), "\n", "\n  "))
}

func (m *Model) renderError(text string) string {
	return m.style(styleError, "✗ "+safetext.Line(text))
}

// renderCall is a call's live line and its folded output: the last few
// lines, and how many more there were.
func (m *Model) renderCall(c *callView) string {
	what := c.tool
	switch {
	case len(c.command) > 0:
		what = safetext.Join(c.command)
	case len(c.changes) > 0:
		var files []string
		for _, ch := range c.changes {
			files = append(files, ch.Kind+" "+safetext.Quote(ch.Path))
		}
		what = "apply_patch: " + strings.Join(files, ", ")
	case c.server != "":
		what = safetext.Line(c.server + "." + c.mcpTool)
	case what == "":
		what = "call " + safetext.Line(c.id)
	}
	label := stateLabel(c)
	if c.done && c.status != "" && c.exit != 0 && c.exit != -1 {
		label += fmt.Sprintf(", exit %d", c.exit)
	}
	mark := "⋯"
	style := styleDim
	switch {
	case c.done && c.status == "completed":
		mark = "✓"
	case c.done:
		mark, style = "✗", styleError
	case c.state == states.Unsandboxed || c.retry:
		style = styleWarn
	}
	line := mark + " " + safetext.Fold(what, max(m.width-len(label)-6, 20)) + "  " + m.style(style, "["+label+"]")
	var b strings.Builder
	b.WriteString(line)
	folded := c.lines - len(c.tail)
	if folded > 0 {
		fmt.Fprintf(&b, "\n  %s", m.style(styleDim, fmt.Sprintf("… %d earlier lines folded", folded)))
	}
	for _, l := range c.tail {
		b.WriteString("\n  " + m.style(styleDim, "│ "+truncate(safetext.Line(safetext.ExpandTabs(l, 0)), m.width-4)))
	}
	return b.String()
}

// truncate cuts a line to width columns.
func truncate(s string, width int) string {
	return ansi.Truncate(s, max(width, 10), "…")
}

// viewOverlay draws the first approval request with its choices.
func (m *Model) viewOverlay(o *overlay) string {
	desc := strings.Trim(approve.Describe(o.req, m.opts.Color), "\n")
	lines := strings.Split(desc, "\n")
	// Keep the choices on screen: a long patch is cut, and d shows it all.
	room := max(m.height-8, 6)
	if len(lines) > room {
		cut := len(lines) - room
		lines = append(lines[:room], fmt.Sprintf("  … %d more lines: press d to read the whole request before answering", cut))
	}
	var choices []string
	for _, c := range approve.Choices(o.req) {
		choices = append(choices, "["+c.Key+"] "+c.Label)
	}
	body := strings.Join(lines, "\n") + "\n\n" + strings.Join(choices, "  ") + "  [d] show all"
	if o.feedback != nil {
		body += "\n" + o.feedback.View()
	} else if o.hint != "" {
		body += "\n" + o.hint
	}
	if n := len(m.overlays) - 1; n > 0 {
		body += fmt.Sprintf("\n(%d more requests waiting)", n)
	}
	return styleBorder.Width(max(m.width-2, 20)).Render(body)
}

// statusLine says which session this is and under what it runs.
func (m *Model) statusLine() string {
	i := m.info
	id := i.SessionID
	if len(id) > 13 {
		id = id[:13]
	}
	sandbox := i.SandboxMode
	// Off is the default and goes unsaid; any other network is named as
	// the audit names it, before the layers so a narrow terminal keeps it.
	if i.Network != "" && i.Network != events.NetworkWordsOff {
		sandbox += ", network " + i.Network
	}
	if len(i.Layers) > 0 {
		sandbox += " (" + strings.Join(i.Layers, " ") + ")"
	}
	tokens := "tokens " + humanTokens(i.TokensUsed)
	if i.Window > 0 {
		tokens += fmt.Sprintf("/%s (%d%%)", humanTokens(i.Window), i.TokensUsed*100/i.Window)
	}
	hint := "Enter send · Ctrl-C quit"
	if m.running {
		hint = "Esc interrupt"
	}
	line := strings.Join([]string{id, i.Model, "approvals " + i.ApprovalPolicy, tokens, hint, "sandbox " + sandbox}, " · ")
	return m.style(styleDim, truncate(line, m.width))
}

func humanTokens(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

func (m *Model) viewPager() string {
	p := m.pager
	head := m.style(styleBold, p.title)
	foot := m.style(styleDim, fmt.Sprintf("%d%% · ↑/↓ PgUp/PgDn scroll · q close", int(p.vp.ScrollPercent()*100)))
	return head + "\n" + p.vp.View() + "\n" + foot
}
