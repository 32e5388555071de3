package tui

import (
	"strings"
	"testing"
)

// The renderer's plain output (no colour) for the markdown a model
// writes, against a golden screen.
func TestMarkdownPlain(t *testing.T) {
	src := "# Plan\n\nFirst *read* the **tests**, then run `go test ./...`:\n\n" +
		"1. fix [the parser](https://example.com/p)\n2. add a case\n   - nested item with a long line that has to wrap somewhere before the edge of the screen\n\n" +
		"> quoted note\n\n```go\nfunc main() {}\n```\n\n---\n\n~~old~~ new <br> done\n"
	golden(t, "markdown_plain.golden", newMarkdown(false).render(src, 60))
}

// With colour the same text is styled, not lost.
func TestMarkdownColorKeepsText(t *testing.T) {
	out := newMarkdown(true).render("a **bold** and `code` word", 60)
	for _, w := range []string{"bold", "code", "word"} {
		if !strings.Contains(out, w) {
			t.Fatalf("%q lost from %q", w, out)
		}
	}
}

// A GFM table keeps its rows and columns: aligned cells under an
// underlined header, and a table wider than the screen wraps its widest
// cells rather than running rows together.
func TestMarkdownTable(t *testing.T) {
	src := "Results:\n\n| package | tests | time |\n|:--|--:|:-:|\n| engine | 112 | 3.1s |\n| sandbox | 48 | 12.0s |\n\n" +
		"| name | what it does |\n|---|---|\n| compact | summarises the conversation so that the model can go on with a smaller context window than before |\n"
	golden(t, "markdown_table.golden", newMarkdown(false).render(src, 50))
}
