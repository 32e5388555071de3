package tui

import (
	"go/scanner"
	"go/token"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// Styles of highlighted Go code.
var (
	hlKeyword = lipgloss.NewStyle().Foreground(lipgloss.Color("5"))
	hlString  = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	hlNumber  = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	hlComment = lipgloss.NewStyle().Faint(true)
)

// highlightGo colours Go code with the standard library's scanner:
// keywords, strings, numbers and comments. It costs nothing at start-up
// (glamour's chroma registered every lexer in init, see markdown.go), and
// code that does not scan is shown as it is past the first error. src is
// already made safe; only this renderer's own escapes are added.
func highlightGo(src string) string {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), nil, scanner.ScanComments)
	var b strings.Builder
	last := 0
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF || s.ErrorCount > 0 {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted by the scanner, not in the source
		}
		off := file.Offset(pos)
		text := lit
		if text == "" {
			text = tok.String()
		}
		if off < last || off+len(text) > len(src) || src[off:off+len(text)] != text {
			break // not where the source has it: show the rest plain
		}
		var st *lipgloss.Style
		switch {
		case tok.IsKeyword():
			st = &hlKeyword
		case tok == token.STRING || tok == token.CHAR:
			st = &hlString
		case tok == token.INT || tok == token.FLOAT || tok == token.IMAG:
			st = &hlNumber
		case tok == token.COMMENT:
			st = &hlComment
		}
		if st == nil {
			continue
		}
		b.WriteString(src[last:off])
		renderByLine(&b, st, text)
		last = off + len(text)
	}
	b.WriteString(src[last:])
	return b.String()
}

// renderByLine writes text in style st line by line: a string or a
// comment may span lines, and each line is indented and shown on its own.
func renderByLine(b *strings.Builder, st *lipgloss.Style, text string) {
	for i, part := range strings.Split(text, "\n") {
		if i > 0 {
			b.WriteString("\n")
		}
		if part != "" {
			b.WriteString(st.Render(part))
		}
	}
}
