package tui

import (
	"strings"

	"github.com/charmbracelet/glamour"
)

// markdown renders finished assistant messages. Renderers are costly to
// build, so one is kept per width.
type markdown struct {
	style string
	width int
	r     *glamour.TermRenderer
}

// newMarkdown picks a fixed style: glamour's automatic one would query
// the terminal's background colour, whose answer arrives on stdin and
// would be read as typing.
func newMarkdown(color bool) *markdown {
	style := "notty"
	if color {
		style = "dark"
	}
	return &markdown{style: style}
}

// render returns text rendered for the width, or the text itself when the
// renderer fails (the message must be shown either way).
func (md *markdown) render(text string, width int) string {
	width = max(width-2, 20)
	if md.r == nil || md.width != width {
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(md.style), glamour.WithWordWrap(width))
		if err != nil {
			return text
		}
		md.r, md.width = r, width
	}
	out, err := md.r.Render(text)
	if err != nil {
		return text
	}
	return strings.Trim(out, "\n")
}
