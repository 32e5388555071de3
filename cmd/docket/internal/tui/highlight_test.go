package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/docket-engine/docket/events/safetext"
)

// A Go code block is highlighted with colour (keywords, strings, numbers,
// comments) and keeps its text exactly; code that does not scan and other
// languages keep theirs too.
func TestGoCodeBlockIsHighlighted(t *testing.T) {
	r := lipgloss.DefaultRenderer()
	prev := r.ColorProfile()
	r.SetColorProfile(2) // termenv.ANSI, without making termenv a direct dependency
	defer r.SetColorProfile(prev)
	md := newMarkdown(true)
	src := "```go\nfunc f() string {\n    // say it\n    return \"hi\" + `raw\nline` + string(rune(42))\n}\n```\n"
	out := md.render(src, 80)
	for _, want := range []string{hlKeyword.Render("func"), hlKeyword.Render("return"), hlString.Render(`"hi"`),
		hlComment.Render("// say it"), hlNumber.Render("42"), hlString.Render("`raw") + "\n    " + hlString.Render("line`")} {
		if !strings.Contains(out, want) {
			t.Errorf("highlighted block lacks %q:\n%q", want, out)
		}
	}
	plain := "    func f() string {\n        // say it\n        return \"hi\" + `raw\n    line` + string(rune(42))\n    }"
	if got := ansi.Strip(out); got != plain {
		t.Errorf("the code's text changed:\n%q\nwant\n%q", got, plain)
	}
	for _, src := range []string{"```go\nx := \"unterminated\nfunc\n```\n", "```python\ndef f(): return 1\n```\n"} {
		if got, want := ansi.Strip(md.render(src, 80)), ansi.Strip(newMarkdown(false).render(src, 80)); got != want {
			t.Errorf("text lost: %q, want %q", got, want)
		}
	}
}

// Highlighting never changes the text, whatever the model wrote.
func FuzzHighlightGoKeepsText(f *testing.F) {
	for _, s := range []string{"func main() {}", "x := `a\nb` // c\n", "\"unterminated", "/* open", "0x1p-2i 'c'"} {
		f.Add(s)
	}
	r := lipgloss.DefaultRenderer()
	r.SetColorProfile(2)
	f.Fuzz(func(t *testing.T, src string) {
		if safetext.Text(src) != src || strings.Contains(src, "\t") {
			return // highlightGo is given text made safe, tabs expanded
		}
		if got := ansi.Strip(highlightGo(src)); got != src {
			t.Fatalf("highlightGo(%q) shows %q", src, got)
		}
	})
}
