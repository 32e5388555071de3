package sandbox

import (
	"strconv"
	"unicode/utf8"
)

// elisionMarker is the text put where output was cut out.
func elisionMarker(n int64) string {
	return "\n[... " + strconv.FormatInt(n, 10) + " bytes elided ...]\n"
}

// ShapeForModel returns output unchanged when it fits in maxBytes; otherwise
// it keeps the head and the tail, cut on UTF-8 boundaries, with a marker in
// the middle saying how many bytes were elided. The result is at most
// maxBytes long when maxBytes leaves room for the marker; a non-positive
// maxBytes returns output unchanged.
func ShapeForModel(output string, maxBytes int) string {
	if maxBytes <= 0 || len(output) <= maxBytes {
		return output
	}
	// The marker's length depends on the count it prints, which depends on
	// the budget left after the marker; two rounds settle it since the count
	// only shrinks.
	budget := maxBytes - len(elisionMarker(int64(len(output))))
	if budget <= 0 {
		return trimRuneEnd(output[:maxBytes])
	}
	headLen := budget / 2
	tailLen := budget - headLen
	head := trimRuneEnd(output[:headLen])
	tail := trimRuneStart(output[len(output)-tailLen:])
	elided := int64(len(output) - len(head) - len(tail))
	return head + elisionMarker(elided) + tail
}

// trimRuneEnd drops a multi-byte rune cut in half at the end of s; other
// bytes, valid or not, are left alone.
func trimRuneEnd(s string) string {
	for back := 1; back <= utf8.UTFMax && back <= len(s); back++ {
		i := len(s) - back
		c := s[i]
		if !utf8.RuneStart(c) {
			continue
		}
		want := 1
		switch {
		case c >= 0xF0:
			want = 4
		case c >= 0xE0:
			want = 3
		case c >= 0xC0:
			want = 2
		}
		if back < want {
			return s[:i]
		}
		return s
	}
	return s
}

// trimRuneStart drops continuation bytes of a rune cut in half at the start of s.
func trimRuneStart(s string) string {
	for i := 0; i < utf8.UTFMax-1 && len(s) > 0 && !utf8.RuneStart(s[0]); i++ {
		s = s[1:]
	}
	return s
}
