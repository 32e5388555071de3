package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/docket-engine/docket/events/safetext"
)

// withANSI colours lipgloss's output for the test, as on a terminal.
func withANSI(t testing.TB) {
	r := lipgloss.DefaultRenderer()
	prev := r.ColorProfile()
	r.SetColorProfile(2) // termenv.ANSI, without making termenv a direct dependency
	t.Cleanup(func() { r.SetColorProfile(prev) })
}

// highlightedSrc is a message with code in several languages, a diff,
// and a language nobody knows.
const highlightedSrc = "Python:\n\n```python\ndef f(n):\n    # double it\n    return n * 2 + len(\"ab\")\n```\n\n" +
	"Rust:\n\n```rs\nfn main() { let x = 42; println!(\"{}\", x); }\n```\n\n" +
	"Shell:\n\n```sh\nif [ -f go.mod ]; then echo 'found'; fi\n```\n\n" +
	"The change:\n\n```diff\n--- a/f.go\n+++ b/f.go\n@@ -1,2 +1,2 @@\n-old line\n+new line\n same\n```\n\n" +
	"Unknown:\n\n```nosuchlanguage\nkeep me plain\n```\n"

// Code blocks are highlighted by the language their fence names (chroma's
// lexers by name, alias or extension), a diff by line as /diff colours it;
// the text stays exactly the text without colour, and a language no lexer
// knows is shown in the plain code style. Against a golden screen (escape
// sequences shown as written).
func TestCodeBlocksAreHighlightedByTheirFence(t *testing.T) {
	withANSI(t)
	out := newMarkdown(true).render(highlightedSrc, 80)
	golden(t, "markdown_highlight.golden", strings.ReplaceAll(out, "\x1b", `\e`)+"\n")
	for _, want := range []string{
		hlKeyword.Render("def"), hlKeyword.Render("return"), hlComment.Render("# double it"), hlNumber.Render("2"),
		hlKeyword.Render("fn"), hlKeyword.Render("let"), hlNumber.Render("42"),
		hlKeyword.Render("if"), hlString.Render("'found'"),
		diffDel.Render("-old line"), diffAdd.Render("+new line"), diffHunk.Render("@@ -1,2 +1,2 @@"), diffFile.Render("+++ b/f.go"),
		mdCode.Render("keep me plain"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the rendering lacks %q", want)
		}
	}
	if got, want := ansi.Strip(out), newMarkdown(false).render(highlightedSrc, 80); got != want {
		t.Errorf("highlighting changed the text:\n%s\nwant\n%s", got, want)
	}
}

// Without colour (NO_COLOR, not a terminal) nothing is highlighted: no
// escape sequence at all.
func TestCodeBlocksAreNotHighlightedWithoutColour(t *testing.T) {
	withANSI(t)
	if out := newMarkdown(false).render(highlightedSrc, 80); strings.Contains(out, "\x1b") {
		t.Errorf("colour off, yet escapes:\n%q", out)
	}
}

// Code longer than the bound is shown plain rather than lexed.
func TestTooLongCodeIsNotLexed(t *testing.T) {
	withANSI(t)
	if _, ok := highlightCode("python", strings.Repeat("x = 1\n", maxHighlightBytes/6+1), oneBlock()); ok {
		t.Error("code over maxHighlightBytes was highlighted")
	}
	if _, ok := highlightCode("python", "x = 1\n", oneBlock()); !ok {
		t.Error("short python code was not highlighted")
	}
}

// oneBlock is a render's whole lexing budget, for one block.
func oneBlock() *int {
	b := maxHighlightBytes
	return &b
}

// TestPathologicalCodeIsShownPlain: text a lexer backtracks on is shown in
// the plain code style, not lexed: 8 KiB of "1." on one line cost the
// YAML lexer 1.5 s (quadratic in the line), all of it in the UI's
// goroutine. The same text in short lines is lexed, so it is the line's
// bound that keeps it plain, and a message's blocks share one budget.
func TestPathologicalCodeIsShownPlain(t *testing.T) {
	withANSI(t)
	md := newMarkdown(true)
	line := strings.Repeat("1.", 4<<10)
	plain := md.render("```nosuchlanguage\n"+line+"\n```", 80)
	if got := md.render("```yaml\n"+line+"\n```", 80); got != plain {
		t.Errorf("a %d-byte line was lexed:\n%q", len(line), got)
	}
	short := strings.TrimSuffix(strings.Repeat(strings.Repeat("1.", 50)+"\n", 10), "\n")
	if got, ok := highlightCode("yaml", short, oneBlock()); !ok || ansi.Strip(got) != short {
		t.Errorf("the same text in 100-byte lines was not highlighted (ok %t)", ok)
	}
	body := strings.Repeat("x = 1\n", maxHighlightBytes/6-1)
	block := "```python\n" + body + "```"
	plainBlock := md.render("```nosuchlanguage\n"+body+"```", 80)
	first, second, found := strings.Cut(md.render(block+"\n\n"+block, 80), "\n\n")
	if !found || first == plainBlock || second != plainBlock {
		t.Errorf("two blocks of %d bytes each: the first is not highlighted or the second is, past the message's budget", maxHighlightBytes-12)
	}
}

// Highlighting never changes the text, whatever the model wrote, in any
// of a few lexers.
func FuzzHighlightCodeKeepsText(f *testing.F) {
	for _, s := range []string{"def f(): return 1", "fn x() { \"a\nb\" }", "echo 'unterminated", "/* open", "<a href='x'>"} {
		f.Add(s)
	}
	withANSI(f)
	f.Fuzz(func(t *testing.T, src string) {
		if safetext.Text(src) != src || strings.Contains(src, "\t") {
			return // the renderer is given text made safe, tabs expanded
		}
		for _, lang := range []string{"python", "rust", "sh", "html", "yaml"} {
			if got, ok := highlightCode(lang, src, oneBlock()); ok && ansi.Strip(got) != src {
				t.Fatalf("highlightCode(%s, %q) shows %q", lang, src, ansi.Strip(got))
			}
		}
	})
}
