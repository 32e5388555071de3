package tui

import (
	"bytes"
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// reflowedRows counts the rows a reflowing terminal adds above the cursor
// when the window narrows: lines above the last that were wider than the
// new width, as the renderer drew them (cut at the old width, the last
// height lines).
func TestReflowedRowsCountsWhatTheTerminalWrapsAboveTheCursor(t *testing.T) {
	wide := strings.Repeat("x", 103)
	for _, tt := range []struct {
		name                    string
		view                    string
		width, height, narrower int
		want                    int
	}{
		{"nothing wider than the new width", "short\nstatus", 120, 24, 70, 0},
		{"a wide line above the status line", wide + "\nstatus", 120, 24, 70, 1},
		{"the last line wraps below the cursor, not above", "short\n" + wide, 120, 24, 70, 0},
		{"three rows for a line three times the width", strings.Repeat("y", 100) + "\nstatus", 120, 24, 40, 2},
		{"cut at the old width first", strings.Repeat("z", 300) + "\nstatus", 120, 24, 70, 1},
		{"lines above the height were never drawn", wide + "\nshort\nstatus", 120, 2, 70, 0},
		{"wide characters count two columns", strings.Repeat("界", 40) + "\nstatus", 120, 24, 70, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := reflowedRows(tt.view, tt.width, tt.height, tt.narrower); got != tt.want {
				t.Errorf("reflowedRows = %d, want %d", got, tt.want)
			}
		})
	}
}

// The guard's correction goes, in the same write, before the renderer's
// next output after a narrowing, and only then; a widening arms nothing.
func TestReflowGuardPutsItsCorrectionBeforeTheNextWriteOnly(t *testing.T) {
	var out bytes.Buffer
	g := NewReflowGuard(&out)
	m := New(context.Background(), newFake(), Options{Width: 120, Height: 24})
	if msg := g.Filter(m, tea.WindowSizeMsg{Width: 130, Height: 24}); msg == nil {
		t.Fatal("the filter dropped the size message")
	}
	if _, err := g.Write([]byte("frame")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "frame" {
		t.Errorf("after widening, the write was %q; want the frame alone", out.String())
	}
	out.Reset()
	g.Filter(m, tea.WindowSizeMsg{Width: 70, Height: 24})
	for _, frame := range []string{"one", "two"} {
		if n, err := g.Write([]byte(frame)); err != nil || n != len(frame) {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if got := out.String(); got != "\r\x1b[Jonetwo" {
		t.Errorf("after narrowing, the writes were %q; want the erase before the first frame only", got)
	}
}
