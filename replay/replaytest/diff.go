package replaytest

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines Diff keeps around a change.
const diffContext = 3

// maxLCSCells bounds the line-matching table: records past it (huge
// command output, say) are shown as one removed and one added block
// between their common head and tail, which is still exact, only longer.
const maxLCSCells = 4 << 20

// Diff returns a line diff of want and got: "  " lines shared, "- " only
// in want, "+ " only in got, with runs of shared lines beyond diffContext
// of a change elided. Equal texts give "".
func Diff(want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	// Shared head and tail first: a changed field in a record leaves most
	// of it alone, and the table below then covers only the middle.
	head := 0
	for head < len(w) && head < len(g) && w[head] == g[head] {
		head++
	}
	tail := 0
	for tail < len(w)-head && tail < len(g)-head && w[len(w)-1-tail] == g[len(g)-1-tail] {
		tail++
	}
	var ops []op
	for _, l := range w[:head] {
		ops = append(ops, op{' ', l})
	}
	ops = append(ops, middle(w[head:len(w)-tail], g[head:len(g)-tail])...)
	for _, l := range w[len(w)-tail:] {
		ops = append(ops, op{' ', l})
	}
	return render(ops)
}

type op struct {
	kind byte // ' ', '-', '+'
	line string
}

// middle diffs two line runs by longest common subsequence.
func middle(w, g []string) []op {
	var out []op
	if len(w)*len(g) > maxLCSCells {
		for _, l := range w {
			out = append(out, op{'-', l})
		}
		for _, l := range g {
			out = append(out, op{'+', l})
		}
		return out
	}
	// lcs[i][j]: the longest common subsequence of w[i:] and g[j:].
	lcs := make([][]int, len(w)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(g)+1)
	}
	for i := len(w) - 1; i >= 0; i-- {
		for j := len(g) - 1; j >= 0; j-- {
			if w[i] == g[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(w) || j < len(g) {
		switch {
		case i < len(w) && j < len(g) && w[i] == g[j]:
			out = append(out, op{' ', w[i]})
			i, j = i+1, j+1
		case i < len(w) && (j == len(g) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, op{'-', w[i]})
			i++
		default:
			out = append(out, op{'+', g[j]})
			j++
		}
	}
	return out
}

// render prints ops, eliding shared lines further than diffContext from
// any change.
func render(ops []op) string {
	near := make([]bool, len(ops))
	for i, o := range ops {
		if o.kind == ' ' {
			continue
		}
		for k := max(0, i-diffContext); k <= min(len(ops)-1, i+diffContext); k++ {
			near[k] = true
		}
	}
	var b strings.Builder
	skipped := 0
	flush := func() {
		if skipped > 0 {
			fmt.Fprintf(&b, "  ... (%d unchanged lines)\n", skipped)
			skipped = 0
		}
	}
	for i, o := range ops {
		if o.kind == ' ' && !near[i] {
			skipped++
			continue
		}
		flush()
		fmt.Fprintf(&b, "%c %s\n", o.kind, o.line)
	}
	flush()
	return b.String()
}
