package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	east "github.com/yuin/goldmark/extension/ast"
)

// minTableColumn is the narrowest a column is squeezed to before its
// cells wrap.
const minTableColumn = 6

// table renders a GFM table as aligned columns between │ rules, its
// header underlined; a table wider than the screen has its widest columns
// narrowed and their cells wrapped, so no row is cut or joined to the
// next (a table used to collapse into one line of text).
func (r *mdRender) table(n *east.Table, width int) string {
	var rows [][]string
	header := 0
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, strings.ReplaceAll(r.inlines(c), "\n", " "))
		}
		if _, ok := row.(*east.TableHeader); ok {
			header = len(rows) + 1
		}
		rows = append(rows, cells)
	}
	cols := 0
	for _, row := range rows {
		cols = max(cols, len(row))
	}
	if cols == 0 {
		return ""
	}
	widths := make([]int, cols)
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], ansi.StringWidth(c), 1)
		}
	}
	// Each column costs its width plus " │ " between columns.
	avail := width - 3*(cols-1)
	for sum(widths) > avail {
		widest := 0
		for i, w := range widths {
			if w > widths[widest] {
				widest = i
			}
		}
		if widths[widest] <= minTableColumn {
			break
		}
		widths[widest]--
	}
	align := func(i int) east.Alignment {
		if i < len(n.Alignments) {
			return n.Alignments[i]
		}
		return east.AlignNone
	}
	var out []string
	for ri, row := range rows {
		wrapped := make([][]string, cols)
		height := 1
		for i := range cols {
			cell := ""
			if i < len(row) {
				cell = row[i]
			}
			wrapped[i] = strings.Split(ansi.Wrap(cell, widths[i], ""), "\n")
			height = max(height, len(wrapped[i]))
		}
		for l := range height {
			parts := make([]string, cols)
			for i := range cols {
				s := ""
				if l < len(wrapped[i]) {
					s = wrapped[i][l]
				}
				parts[i] = pad(s, widths[i], align(i))
			}
			out = append(out, strings.TrimRight(strings.Join(parts, r.style(styleDim, " │ ")), " "))
		}
		if ri+1 == header {
			rules := make([]string, cols)
			for i, w := range widths {
				rules[i] = strings.Repeat("─", w)
			}
			out = append(out, r.style(styleDim, strings.Join(rules, "─┼─")))
		}
	}
	return strings.Join(out, "\n")
}

// pad fills s to width columns, on the side its alignment asks.
func pad(s string, width int, a east.Alignment) string {
	gap := max(width-ansi.StringWidth(s), 0)
	switch a {
	case east.AlignRight:
		return strings.Repeat(" ", gap) + s
	case east.AlignCenter:
		return strings.Repeat(" ", gap/2) + s + strings.Repeat(" ", gap-gap/2)
	}
	return s + strings.Repeat(" ", gap)
}

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
