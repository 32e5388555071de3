// Package safetext renders strings that came from the model or from a
// command (argv, justifications, output, call ids, reasons quoted from the
// journal) for a person to read on a terminal, in a text report or in a
// log. The model is attacker-controlled (prompt injection from any file it
// read), so such a string may hold escape sequences that rewrite what the
// terminal shows (`\x1b[2K\r` erases a line and returns to its start),
// bidirectional overrides that reorder it, or invisible characters. Every
// one of them is made visible here, as the escape a shell or Go would
// write for it, and nothing that reaches a person skips this package:
// the CLI's human output, the approval prompt and the text audit all call
// it.
//
// It lives under events because it is about how the journal's strings
// look, and because every layer that shows them (replay/audit as well as
// cmd/docket) may import it; it imports nothing of Docket's.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultWidth is where Fold breaks a line, in runes: wide enough for a
// command line, narrow enough that nothing hides beyond a terminal's edge
// behind a run of spaces.
const DefaultWidth = 160

// FoldMark starts each continuation line Fold makes, so a folded line is
// never mistaken for a line of its own.
const FoldMark = "  ↪ "

// unsafeRune reports whether r must not reach a terminal as itself:
// controls (C0, DEL, C1), format characters (bidi overrides and isolates,
// zero-width characters, the BOM, tag characters, soft hyphen), line and
// paragraph separators, and blank-looking letters that render as nothing.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == utf8.RuneError:
		// Only reached for a literal U+FFFD; invalid bytes are handled
		// by the callers, which see the width.
		return false
	case unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cs):
		return true
	}
	switch r {
	case 0x115f, 0x1160, 0x3164, 0xffa0, // Hangul fillers: letters that show nothing
		0x180e,                         // Mongolian vowel separator
		0xfe00, 0xfe01, 0xfe02, 0xfe03, // a few variation selectors, which alter the previous glyph
		0xfe0e, 0xfe0f, 0xfff9, 0xfffa, 0xfffb:
		return true
	}
	return false
}

// escapeRune writes the visible form of an unsafe rune.
func escapeRune(b *strings.Builder, r rune) {
	switch r {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	case 0x1b:
		b.WriteString(`\e`)
	default:
		switch {
		case r < 0x80:
			fmt.Fprintf(b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			fmt.Fprintf(b, `\U%08x`, r)
		}
	}
}

// Line renders s as one line: every control character, newline and tab
// included, and every unsafe rune is written as its escape (`\e`, `\r`,
// `\n`, `\u202e`), and bytes that are not UTF-8 as `\xNN`. Printable text,
// non-ASCII letters included, is left as it is.
func Line(s string) string {
	return render(s, false)
}

// Text renders s as lines: like Line, but a newline stays a line break and
// a tab a tab, so command output and messages keep their shape. A carriage
// return is still made visible: it is how one line is drawn over another.
func Text(s string) string {
	return render(s, true)
}

func render(s string, keepLines bool) string {
	if isPlain(s, keepLines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case unsafeRune(r):
			escapeRune(&b, r)
		default:
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}

// isPlain reports whether s needs no escaping, without allocating: the
// common case for command output.
func isPlain(s string, keepLines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return plainRunes(s[i:], keepLines)
		}
		if c < 0x20 || c == 0x7f {
			if keepLines && (c == '\n' || c == '\t') {
				continue
			}
			return false
		}
	}
	return true
}

func plainRunes(s string, keepLines bool) bool {
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			return false
		}
		if unsafeRune(r) && !(keepLines && (r == '\n' || r == '\t')) {
			return false
		}
		i += w
	}
	return true
}

// Fold breaks every line of s longer than width runes into pieces of
// width runes, each continuation starting with FoldMark. width < 1 means
// DefaultWidth. Fold does not make s safe: apply it to what Line or Text
// returned.
func Fold(s string, width int) string {
	if width < 1 {
		width = DefaultWidth
	}
	if len(s) <= width {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/width*len(FoldMark))
	col := 0
	for _, r := range s {
		if r == '\n' {
			col = 0
			b.WriteRune(r)
			continue
		}
		if col == width {
			b.WriteString("\n")
			b.WriteString(FoldMark)
			col = 0
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// Quote renders one argv word so that a POSIX shell (bash, for the $'…'
// form) reads back exactly the same bytes, and so that nothing in it acts
// on the terminal: a plain word stays bare, a word with shell
// metacharacters goes in single quotes, and a word with any unsafe rune or
// byte is written in ANSI-C quoting, $'…', with every such rune escaped.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	if !isPlain(s, false) {
		return ansiC(s)
	}
	bare := true
	for i := 0; i < len(s); i++ {
		if !bareByte(s[i]) {
			bare = false
			break
		}
	}
	if bare {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// ansiC writes s as $'…'. Invalid UTF-8 bytes and unsafe non-ASCII runes
// become \xNN per byte, which bash decodes back to the same bytes in any
// locale.
func ansiC(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\'':
			b.WriteString(`\'`)
		case unsafeRune(r) && r >= 0x80:
			// Byte by byte: bash decodes \u by the locale, \x never.
			for j := i; j < i+w; j++ {
				fmt.Fprintf(&b, `\x%02x`, s[j])
			}
		case unsafeRune(r):
			escapeRune(&b, r)
		default:
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	b.WriteString("'")
	return b.String()
}

// bareByte reports whether c needs no quoting in a POSIX shell word.
func bareByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	case c >= 0x80:
		// Non-ASCII letters; isPlain has already sent anything unsafe to $'…'.
		return true
	}
	return strings.IndexByte("+-./:@]_", c) >= 0
}

// Join renders argv as one command line a shell reads back as the same
// argv, every word quoted by Quote. It is what an approval prompt shows:
// the exact argv that will run.
func Join(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = Quote(a)
	}
	return strings.Join(parts, " ")
}
