package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
)

// countingWriter counts the bytes of one kind written to it.
type countingWriter struct {
	b     byte
	count int
	lines int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.count += bytes.Count(p, []byte{w.b})
	w.lines += bytes.Count(p, []byte{'\n'})
	return len(p), nil
}

// TestOutputWithoutNewlinesIsShownInBoundedPieces: a call's output with no
// newline at all is shown in full, in folded pieces, while the renderer
// never holds more than maxPartial bytes of it.
func TestOutputWithoutNewlinesIsShownInBoundedPieces(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chunk string
	}{
		{"no newline", strings.Repeat("q", 64<<10)},
		{"short lines", strings.Repeat("qqqqqqq\n", 8<<10)},
		{"multibyte runes split across chunks", strings.Repeat("é", 32<<10) + "q"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w countingWriter
			w.b = tc.chunk[0]
			h := NewHuman(io.Discard, &w, HumanOptions{})
			h.Notify(engine.Notice{Type: engine.NoticeCallStarted, CallID: "c1", Tool: "shell", Command: []string{"yes"}})
			const chunks = 128 // 8 MiB
			for range chunks {
				h.Notify(engine.Notice{Type: engine.NoticeCallOutput, CallID: "c1", Text: tc.chunk})
				if n := len(h.calls["c1"].partial); n > maxPartial {
					t.Fatalf("the renderer holds %d bytes of an unfinished line, more than %d", n, maxPartial)
				}
			}
			h.Notify(engine.Notice{Type: engine.NoticeCallCompleted, CallID: "c1", Tool: "shell", Status: engine.StatusCompleted})
			want := strings.Count(tc.chunk, string(tc.chunk[0])) * chunks
			if tc.chunk[0] == 0xc3 { // é: count its first byte
				want = strings.Count(tc.chunk, "é") * chunks
			}
			if w.count != want {
				t.Fatalf("showed %d of %d output bytes", w.count, want)
			}
		})
	}
}

// BenchmarkCallOutput compares the human renderer with --json on big
// outputs, with and without newlines (docs/benchmarks.md has figures).
func BenchmarkCallOutput(b *testing.B) {
	for _, size := range []int{10 << 20, 100 << 20} {
		for _, shape := range []struct {
			name string
			unit string
		}{{"lines", "a line of output 42\n"}, {"nonewline", "abcdefghijklmnopqrstuvwxyz"}} {
			chunk := strings.Repeat(shape.unit, (64<<10)/len(shape.unit))
			n := size / len(chunk)
			for _, mode := range []string{"human", "json"} {
				b.Run(fmt.Sprintf("%s/%dMB/%s", mode, size>>20, shape.name), func(b *testing.B) {
					b.SetBytes(int64(n * len(chunk)))
					b.ReportAllocs()
					for b.Loop() {
						var obs engine.Observer
						if mode == "human" {
							obs = NewHuman(io.Discard, io.Discard, HumanOptions{})
						} else {
							obs = NewJSONL(io.Discard)
						}
						obs.Notify(engine.Notice{Type: engine.NoticeCallStarted, CallID: "c1", Tool: "shell", Command: []string{"gen"}})
						for range n {
							obs.Notify(engine.Notice{Type: engine.NoticeCallOutput, CallID: "c1", Text: chunk})
						}
						obs.Notify(engine.Notice{Type: engine.NoticeCallCompleted, CallID: "c1", Tool: "shell", Status: engine.StatusCompleted})
					}
				})
			}
		}
	}
}
