package tui

import (
	"strings"

	"github.com/alecthomas/chroma"
	"github.com/alecthomas/chroma/lexers"
	"github.com/charmbracelet/lipgloss"
)

// The lexers are regular expressions with backtracking (regexp2), run on
// the model's text in the UI's goroutine. Their cost grows with the square
// of a line's length on text they do not expect (8 KiB of "1." on one line
// took 1.5 s in the YAML lexer, 60 KiB two minutes; the same text in
// 100-byte lines 33 ms), so both a block and a line are bounded, and code
// past either is shown in the plain code style.
const (
	// maxHighlightBytes bounds a block chroma lexes.
	maxHighlightBytes = 16 << 10
	// maxHighlightLine bounds each of its lines: longer is seldom code a
	// person reads (minified text, data) and is where backtracking costs.
	maxHighlightLine = 256
)

// highlightCode colours code in the language a fence's info string names:
// Go with the standard library's scanner (highlightGo), a diff or patch by
// line as /diff does (colorDiff), any other language chroma knows (by
// name, alias or file extension: "python", "py", "ts", "sh") by its
// lexer. ok is false for a language it does not know, or code past the
// bounds (maxHighlightBytes, maxHighlightLine, and budget: what chroma may
// still lex in the message, taken from when it does): the caller shows it
// plain. src is already made safe; only this
// renderer's own escapes are added.
//
// Chroma is v0.10, the last release whose lexers are Go code compiled on
// first use: registering its 213 lexers costs about 1 ms at start-up, where
// v2 parses 279 embedded XML lexers in init (about 6 ms and 2.7 MB for
// every docket command; docs/decisions.md).
func highlightCode(lang, src string, budget *int) (out string, ok bool) {
	lang = strings.ToLower(lang)
	switch lang {
	case "":
		return "", false
	case "go", "golang":
		return highlightGo(src), true
	case "diff", "patch", "udiff":
		return colorDiff(src), true
	}
	if !lexable(src) || len(src) > *budget {
		return "", false
	}
	*budget -= len(src)
	lexer := lexers.Get(lang)
	if lexer == nil {
		return "", false
	}
	// A lexer's mutator panics on a state it does not know: the model's
	// text must not end the UI; the code is shown plain.
	defer func() {
		if recover() != nil {
			out, ok = "", false
		}
	}()
	it, err := chroma.Coalesce(lexer).Tokenise(nil, src)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	shown := 0
	for tok := it(); tok != chroma.EOF; tok = it() {
		shown += len(tok.Value)
		st := tokenStyle(tok.Type)
		if st == nil {
			b.WriteString(tok.Value)
			continue
		}
		renderByLine(&b, st, tok.Value)
	}
	if shown != len(src) {
		// A lexer that lost or added text (it ensures a final newline)
		// must not change what the code says: keep the text as it was.
		if shown == len(src)+1 && strings.HasSuffix(b.String(), "\n") {
			return strings.TrimSuffix(b.String(), "\n"), true
		}
		return "", false
	}
	return b.String(), true
}

// lexable reports whether src is within the bounds chroma is run on.
func lexable(src string) bool {
	if len(src) > maxHighlightBytes {
		return false
	}
	for line := range strings.Lines(src) {
		if len(line) > maxHighlightLine+1 { // +1: the newline
			return false
		}
	}
	return true
}

// tokenStyle is the colour of a token: the four kinds Go code is
// coloured by (keywords, strings, numbers, comments); nil for the rest.
func tokenStyle(t chroma.TokenType) *lipgloss.Style {
	switch {
	case t.InCategory(chroma.Keyword):
		return &hlKeyword
	case t.InSubCategory(chroma.LiteralString):
		return &hlString
	case t.InSubCategory(chroma.LiteralNumber):
		return &hlNumber
	case t.InCategory(chroma.Comment):
		return &hlComment
	}
	return nil
}
