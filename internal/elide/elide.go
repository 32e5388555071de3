// Package elide cuts text in the middle the one way Docket does, for the
// capture of a command's output (package sandbox) and for the output shaped
// for the model (package engine): a head and a tail cut on UTF-8
// boundaries, joined by a marker that says how many bytes went.
package elide

import (
	"strconv"
	"unicode/utf8"
)

// Marker is the text put where n bytes were cut out.
func Marker(n int64) string {
	return "\n[... " + strconv.FormatInt(n, 10) + " bytes elided ...]\n"
}

// TrimRuneEnd drops a multi-byte rune cut in half at the end of s; other
// bytes, valid or not, are left alone.
func TrimRuneEnd(s string) string {
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

// TrimRuneStart drops continuation bytes of a rune cut in half at the
// start of s.
func TrimRuneStart(s string) string {
	for i := 0; i < utf8.UTFMax-1 && len(s) > 0 && !utf8.RuneStart(s[0]); i++ {
		s = s[1:]
	}
	return s
}
