package elide

import (
	"testing"
	"unicode/utf8"
)

func TestTrimKeepsRunesWhole(t *testing.T) {
	const s = "aé€😀" // 1, 2, 3 and 4 bytes
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "a 4-byte rune cut at its end is dropped", got: TrimRuneEnd(s[:len(s)-1]), want: "aé€"},
		{name: "a whole rune at the end stays", got: TrimRuneEnd(s), want: s},
		{name: "a 2-byte rune cut at the start is dropped", got: TrimRuneStart(s[2:]), want: "€😀"},
		{name: "a 4-byte rune cut at the start is dropped", got: TrimRuneStart(s[len(s)-3:]), want: ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if m := Marker(1234); m != "\n[... 1234 bytes elided ...]\n" || !utf8.ValidString(m) {
		t.Errorf("Marker(1234) = %q", m)
	}
}
