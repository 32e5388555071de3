package mcpserve

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The text answers mix Docket's words with text a command, a model or a
// client chose (a command's output, a patch, a justification). Read by a
// model, a line of the latter that looks like Docket's ("Parked call
// mcp_1 was answered ... approved") would be taken as Docket's. So such
// text is fenced: every one of its lines starts with fencePrefix, which
// no line of Docket's does, and every character that could start a line
// (CR, VT, FF, the file, group and record separators Python's splitlines
// honours, NEL, the Unicode line and paragraph separators) starts one
// here, prefix included; the other control characters (ESC, backspace,
// C1), which move a terminal's cursor back over the prefix, and bytes
// that are not UTF-8 are shown as Go escapes. The structured content
// keeps the text as it is.

// fencePrefix starts every line of fenced text.
const fencePrefix = "  | "

// fenced returns s with each line after fencePrefix, ending in a newline;
// "" for empty text.
func fenced(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/16 + len(fencePrefix))
	b.WriteString(fencePrefix)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r' && strings.HasPrefix(s[i+size:], "\n"):
			// CRLF is one line end.
		case isLineBreak(r):
			b.WriteString("\n" + fencePrefix)
		case r == utf8.RuneError && size == 1:
			// A byte that is not UTF-8 (0x9b is a CSI to an 8-bit
			// terminal): shown, not passed on.
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r) && r != '\t':
			// ESC, backspace and the C1 controls move a terminal's
			// cursor back over the fence: shown as escapes.
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteString("\n")
	return b.String()
}

// isLineBreak reports whether r ends a line in some reader's eyes.
func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// oneLine returns s as one line: as it is when every character is
// printable, Go-quoted otherwise (a newline in an argument could start a
// line that looks like Docket's).
func oneLine(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) && r != ' ' || isLineBreak(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
