package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// markdown renders finished assistant messages for the terminal: goldmark
// parses, and this walks the tree into styled, wrapped lines. (glamour
// was tried first: its syntax highlighter registers every lexer and style
// at start-up, which added ~40 ms and 14 MiB to every docket command, the
// sandbox's included.)
type markdown struct {
	color bool
	md    goldmark.Markdown
}

func newMarkdown(color bool) *markdown {
	return &markdown{color: color, md: goldmark.New(goldmark.WithExtensions(extension.Strikethrough, extension.Table))}
}

// Styles of the markdown renderer (applied only with colour).
var (
	mdHeading = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("5"))
	mdStrong  = lipgloss.NewStyle().Bold(true)
	mdEm      = lipgloss.NewStyle().Italic(true)
	mdCode    = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	mdLink    = lipgloss.NewStyle().Underline(true)
	mdStrike  = lipgloss.NewStyle().Strikethrough(true)
)

// maxMarkdownDepth bounds the nesting the renderer follows (lists in
// quotes in lists ...); deeper content is shown as plain text.
const maxMarkdownDepth = 32

// render returns text rendered for the width.
func (md *markdown) render(src string, width int) string {
	width = max(width-2, 20)
	r := &mdRender{md: md, src: []byte(src), width: width, lexBudget: maxHighlightBytes}
	doc := md.md.Parser().Parse(text.NewReader(r.src))
	var blocks []string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		blocks = append(blocks, r.block(n, width, 0))
	}
	return strings.Join(blocks, "\n\n")
}

type mdRender struct {
	md    *markdown
	src   []byte
	width int
	// lexBudget is what chroma may still lex in this render: the bound is
	// the message's, not each block's (highlightCode).
	lexBudget int
}

func (r *mdRender) style(s lipgloss.Style, t string) string {
	if !r.md.color {
		return t
	}
	return s.Render(t)
}

// block renders one block node wrapped to width.
func (r *mdRender) block(n ast.Node, width, depth int) string {
	width = max(width, 10)
	if depth > maxMarkdownDepth {
		return r.plain(n, 0)
	}
	switch v := n.(type) {
	case *ast.Heading:
		return r.style(mdHeading, ansi.Wordwrap(strings.Repeat("#", v.Level)+" "+r.inlines(n), width, ""))
	case *ast.Paragraph, *ast.TextBlock:
		return ansi.Wordwrap(r.inlines(n), width, "")
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var code strings.Builder
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			if i > 0 {
				code.WriteString("\n")
			}
			code.WriteString(strings.TrimRight(string(seg.Value(r.src)), "\n"))
		}
		text := code.String()
		lang := ""
		if f, ok := v.(*ast.FencedCodeBlock); ok && f.Info != nil {
			lang, _, _ = strings.Cut(strings.TrimSpace(string(f.Info.Segment.Value(r.src))), " ")
		}
		out := strings.Split(text, "\n")
		hl, ok := "", false
		if r.md.color {
			hl, ok = highlightCode(lang, text, &r.lexBudget)
		}
		if ok {
			out = strings.Split(hl, "\n")
		} else {
			for i, l := range out {
				out[i] = r.style(mdCode, l)
			}
		}
		return prefixLines(strings.Join(out, "\n"), "    ", "    ")
	case *ast.Blockquote:
		inner := r.children(n, width-2, depth)
		return prefixLines(inner, r.style(styleDim, "│ "), r.style(styleDim, "│ "))
	case *ast.List:
		var items []string
		i := v.Start
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			mark := "• "
			if v.IsOrdered() {
				mark = fmt.Sprintf("%d. ", i)
				i++
			}
			pad := strings.Repeat(" ", len(mark))
			items = append(items, prefixLines(r.children(it, width-len(mark), depth+1), mark, pad))
		}
		sep := "\n"
		if !v.IsTight {
			sep = "\n\n"
		}
		return strings.Join(items, sep)
	case *east.Table:
		return r.table(v, width)
	case *ast.ThematicBreak:
		return r.style(styleDim, strings.Repeat("─", min(width, 40)))
	case *ast.HTMLBlock:
		var b strings.Builder
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			b.Write(seg.Value(r.src))
		}
		return strings.TrimRight(b.String(), "\n")
	}
	return r.children(n, width, depth)
}

// children renders the block children of n, one after another.
func (r *mdRender) children(n ast.Node, width, depth int) string {
	var parts []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		parts = append(parts, r.block(c, width, depth+1))
	}
	return strings.Join(parts, "\n")
}

// inlines renders the inline children of n.
func (r *mdRender) inlines(n ast.Node) string {
	var b strings.Builder
	r.inline(&b, n, 0)
	return b.String()
}

func (r *mdRender) inline(b *strings.Builder, n ast.Node, depth int) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if depth > maxMarkdownDepth {
			b.WriteString(r.plain(c, 0))
			continue
		}
		switch v := c.(type) {
		case *ast.Text:
			b.Write(v.Segment.Value(r.src))
			switch {
			case v.HardLineBreak():
				b.WriteString("\n")
			case v.SoftLineBreak():
				b.WriteString(" ")
			}
		case *ast.String:
			b.Write(v.Value)
		case *ast.CodeSpan:
			code := r.plain(c, 0)
			if r.md.color {
				b.WriteString(mdCode.Render(code))
			} else {
				b.WriteString("`" + code + "`")
			}
		case *ast.Emphasis:
			var inner strings.Builder
			r.inline(&inner, c, depth+1)
			st := mdEm
			if v.Level >= 2 {
				st = mdStrong
			}
			b.WriteString(r.style(st, inner.String()))
		case *east.Strikethrough:
			var inner strings.Builder
			r.inline(&inner, c, depth+1)
			b.WriteString(r.style(mdStrike, inner.String()))
		case *ast.Link:
			var inner strings.Builder
			r.inline(&inner, c, depth+1)
			b.WriteString(r.style(mdLink, inner.String()))
			if dest := string(v.Destination); dest != "" && dest != inner.String() {
				b.WriteString(" (" + dest + ")")
			}
		case *ast.AutoLink:
			b.WriteString(r.style(mdLink, string(v.URL(r.src))))
		case *ast.Image:
			var inner strings.Builder
			r.inline(&inner, c, depth+1)
			b.WriteString("[image: " + inner.String() + "]")
		case *ast.RawHTML:
			segs := v.Segments
			for i := range segs.Len() {
				seg := segs.At(i)
				b.Write(seg.Value(r.src))
			}
		default:
			r.inline(b, c, depth+1)
		}
	}
}

// plain is the text of n's inline leaves, without markup: what is shown
// past the nesting bound, and a code span's content. Its own depth is
// bounded too: anything deeper is dropped.
func (r *mdRender) plain(n ast.Node, depth int) string {
	var b strings.Builder
	if t, ok := n.(*ast.Text); ok {
		return string(t.Segment.Value(r.src))
	}
	if depth > 2*maxMarkdownDepth {
		return ""
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch v := c.(type) {
		case *ast.Text:
			b.Write(v.Segment.Value(r.src))
		case *ast.String:
			b.Write(v.Value)
		default:
			b.WriteString(r.plain(c, depth+1))
		}
	}
	return b.String()
}

// prefixLines puts first before the first line of s and rest before the
// others.
func prefixLines(s, first, rest string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}
