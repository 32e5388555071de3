package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/docket-engine/docket/events/safetext"
)

// Styles of a unified diff's lines.
var (
	diffAdd  = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	diffDel  = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	diffHunk = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	diffFile = lipgloss.NewStyle().Bold(true)
)

// safeDiff makes a diff's lines safe to show (the workspace's files are
// the model's writing), tabs expanded.
func safeDiff(d string) string {
	lines := strings.Split(strings.TrimRight(safetext.ExpandTabs(d, 0), "\n"), "\n")
	for i, l := range lines {
		lines[i] = safetext.Line(l)
	}
	return strings.Join(lines, "\n")
}

// colorDiff colours a safe unified diff by line, as git diff --color
// does: added green, removed red, hunk headers cyan, file headers bold.
func colorDiff(d string) string {
	lines := strings.Split(d, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "):
			lines[i] = diffFile.Render(l)
		case strings.HasPrefix(l, "@@"):
			lines[i] = diffHunk.Render(l)
		case strings.HasPrefix(l, "+"):
			lines[i] = diffAdd.Render(l)
		case strings.HasPrefix(l, "-"):
			lines[i] = diffDel.Render(l)
		}
	}
	return strings.Join(lines, "\n")
}
