package safetext

import "strings"

// TabWidth is the tab stop ExpandTabs uses for code, patches and command
// output shown in a terminal UI: Go's own indentation, as gofmt's readers
// (and Codex's TUI) show it.
const TabWidth = 4

// ExpandTabs replaces every tab in s with the spaces up to the next tab
// stop (every width columns, counted in runes from each line's start).
// Line escapes a tab as `\t`, which is right for an argv or a reason but
// turns indented code into noise; a screen that draws code expands tabs
// first, then makes the rest safe. width < 1 means TabWidth.
func ExpandTabs(s string, width int) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	if width < 1 {
		width = TabWidth
	}
	var b strings.Builder
	b.Grow(len(s) + 4*strings.Count(s, "\t"))
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := width - col%width
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}
