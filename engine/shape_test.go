package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShapeForModel(t *testing.T) {
	long := strings.Repeat("a", 500) + strings.Repeat("z", 500)
	tests := []struct {
		name   string
		in     string
		max    int
		want   string
		prefix string
		suffix string
	}{
		{name: "fits", in: "hello", max: 5, want: "hello"},
		{name: "no cap", in: long, max: 0, want: long},
		{name: "middle elided", in: long, max: 100, prefix: "aaaa", suffix: "zzzz"},
		{name: "tiny cap keeps the head only", in: long, max: 10, want: "aaaaaaaaaa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := shapeForModel(tt.in, tt.max)
			if tt.want != "" && got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			if !strings.HasPrefix(got, tt.prefix) || !strings.HasSuffix(got, tt.suffix) {
				t.Fatalf("got %q", got)
			}
			if tt.max > 0 && len(got) > tt.max {
				t.Fatalf("len %d > %d", len(got), tt.max)
			}
		})
	}
	got := shapeForModel(long, 100)
	if !strings.Contains(got, "[... 929 bytes elided ...]") {
		t.Errorf("marker does not count the elided bytes: %q", got)
	}
}

func TestShapeForModelKeepsRunesWhole(t *testing.T) {
	in := strings.Repeat("é", 100) + strings.Repeat("日本", 100) // 2- and 3-byte runes
	for max := 40; max < 120; max++ {
		got := shapeForModel(in, max)
		if !utf8.ValidString(got) {
			t.Fatalf("max %d: invalid UTF-8 %q", max, got)
		}
		if len(got) > max {
			t.Fatalf("max %d: len %d", max, len(got))
		}
	}
}

func FuzzShapeForModel(f *testing.F) {
	f.Add("hello world", 5)
	f.Add(strings.Repeat("日本語", 50), 64)
	f.Add("\xff\xfe\xc3", 2)
	f.Fuzz(func(t *testing.T, in string, max int) {
		if max > 1<<20 || max < -1 {
			return
		}
		got := shapeForModel(in, max)
		if max <= 0 || len(in) <= max {
			if got != in {
				t.Fatalf("changed input that fits")
			}
			return
		}
		if len(got) > max {
			t.Fatalf("len %d > max %d", len(got), max)
		}
		if utf8.ValidString(in) && !utf8.ValidString(got) {
			t.Fatalf("valid input became invalid: %q", got)
		}
	})
}
