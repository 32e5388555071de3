package tui

import (
	"io"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// ReflowGuard keeps a narrowed window from showing the live area twice.
// A terminal that reflows its rows on resize (VTE, kitty, iTerm2) wraps
// each live line wider than the new width into several rows; Bubble Tea's
// inline renderer then moves up one row per line it drew, lands inside its
// old frame rather than on its first row, and redraws below what is left
// of it. The guard counts, before the renderer sees the new size, the rows
// the terminal added above the cursor, and puts in front of the renderer's
// next write a move up over them and an erase of everything below: the
// renderer's own move then lands on the frame's first row, and no row of
// the old frame survives under the new one (issue 30). Codex redraws its
// whole viewport on resize to the same end.
//
// Use it as the program's output (tea.WithOutput) and run Filter in its
// tea.WithFilter.
type ReflowGuard struct {
	out io.Writer

	mu      sync.Mutex
	pending string // written before the next write; "" for nothing
}

// NewReflowGuard writes the program's output to out.
func NewReflowGuard(out io.Writer) *ReflowGuard { return &ReflowGuard{out: out} }

// Write writes p to the terminal, after the correction a narrowing armed:
// one write, so nothing comes between the two.
func (g *ReflowGuard) Write(p []byte) (int, error) {
	g.mu.Lock()
	pre := g.pending
	g.pending = ""
	g.mu.Unlock()
	if pre == "" {
		return g.out.Write(p)
	}
	if _, err := g.out.Write(append([]byte(pre), p...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Fd is the terminal's descriptor when out is one: Bubble Tea learns the
// window's size, and follows its changes, only from an output with one
// (term.File).
func (g *ReflowGuard) Fd() uintptr {
	if f, ok := g.out.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// Read reads from out when it can be read (a terminal can), for term.File.
func (g *ReflowGuard) Read(p []byte) (int, error) {
	if r, ok := g.out.(io.Reader); ok {
		return r.Read(p)
	}
	return 0, io.EOF
}

// Close does nothing: the guard does not own out.
func (g *ReflowGuard) Close() error { return nil }

// Filter arms the correction when a tea.WindowSizeMsg narrows the window
// of m (a *Model); it passes every message on unchanged. It runs before
// the renderer learns the new size, with the frame it last drew still the
// model's view.
func (g *ReflowGuard) Filter(m tea.Model, msg tea.Msg) tea.Msg {
	ws, ok := msg.(tea.WindowSizeMsg)
	if !ok {
		return msg
	}
	tm, ok := m.(*Model)
	if !ok || tm.pager != nil || tm.width == 0 || ws.Width <= 0 || ws.Width >= tm.width {
		// The pager draws on the alternate screen from its top left; a
		// wider window wraps nothing the renderer drew.
		return msg
	}
	up := reflowedRows(tm.View(), tm.width, tm.height, ws.Width)
	fix := "\r" + ansi.EraseScreenBelow
	if up > 0 {
		fix = ansi.CursorUp(up) + fix
	}
	g.mu.Lock()
	g.pending = fix
	g.mu.Unlock()
	return msg
}

// reflowedRows is how many rows a terminal narrowed from width to narrower
// adds above the cursor to a frame the renderer drew of view: each line
// but the last (the cursor sits at the start of the last) takes one row
// per narrower columns of what was shown of it (the renderer cut it at
// width, and drew at most height lines, the last ones).
func reflowedRows(view string, width, height, narrower int) int {
	lines := strings.Split(view, "\n")
	if height > 0 && len(lines) > height {
		lines = lines[len(lines)-height:]
	}
	extra := 0
	for _, l := range lines[:len(lines)-1] {
		w := min(ansi.StringWidth(l), width)
		if w > narrower {
			extra += (w+narrower-1)/narrower - 1
		}
	}
	return extra
}
