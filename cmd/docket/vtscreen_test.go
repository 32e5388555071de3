package main

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// vtScreen is the far side of a pty acting as a small VT100/xterm: it
// keeps a grid of cells and the scrollback rows pushed off its top, so a
// test sees what a person sees and what stays in their scrollback after
// the program has redrawn, not just the bytes written. It implements what
// Bubble Tea's inline renderer writes (cursor moves, erase in line and
// display, auto-wrap, the alternate screen) and answers the cursor
// position (CSI 6n) and background colour (OSC 11) queries as a terminal
// does, unless answer is false: some terminals answer neither.
type vtScreen struct {
	mu     sync.Mutex
	cond   *sync.Cond
	f      *os.File
	answer bool
	rows   int
	cols   int

	grid [][]rune
	// written is how far each row was written (spaces included): what a
	// reflowing terminal keeps as the row's content.
	written    []int
	saved      [][]rune // the main screen while the alternate one is up
	scrollback []string
	row, col   int
	wrapNext   bool
	pending    []byte // an escape sequence split across reads
	raw        strings.Builder
	done       bool
}

func newVTScreen(f *os.File, rows, cols int, answer bool) *vtScreen {
	s := &vtScreen{f: f, answer: answer, rows: rows, cols: cols}
	s.cond = sync.NewCond(&s.mu)
	s.grid = s.blank()
	s.written = make([]int, rows)
	go func() {
		buf := make([]byte, 8192)
		for {
			n, err := f.Read(buf)
			s.mu.Lock()
			s.raw.Write(buf[:n])
			replies := s.feed(buf[:n])
			if err != nil {
				s.done = true
			}
			s.cond.Broadcast()
			s.mu.Unlock()
			if replies != "" {
				_, _ = f.Write([]byte(replies))
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *vtScreen) blank() [][]rune {
	g := make([][]rune, s.rows)
	for i := range g {
		g[i] = s.blankRow()
	}
	return g
}

func (s *vtScreen) blankRow() []rune {
	r := make([]rune, s.cols)
	for i := range r {
		r[i] = ' '
	}
	return r
}

// reflow narrows the screen as VTE, kitty or iTerm2 do: a row written
// past the new width (its spaces included) is split over as many rows as
// it needs, the rows above the cursor that no longer fit go to the
// scrollback, and the cursor stays on the cell it was on.
func (s *vtScreen) reflow(cols int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var grid [][]rune
	var written []int
	crow, ccol := 0, 0
	for r, row := range s.grid {
		n := max((s.written[r]+cols-1)/cols, 1)
		if r == s.row {
			crow, ccol = len(grid)+min(s.col/cols, n-1), s.col%cols
		}
		for k := range n {
			nr := make([]rune, cols)
			for j := range nr {
				nr[j] = ' '
				if k*cols+j < len(row) {
					nr[j] = row[k*cols+j]
				}
			}
			grid = append(grid, nr)
			written = append(written, min(max(s.written[r]-k*cols, 0), cols))
		}
	}
	// Drop blank rows at the bottom first, then scroll the top off.
	for len(grid) > s.rows && len(grid)-1 > crow && written[len(grid)-1] == 0 {
		grid, written = grid[:len(grid)-1], written[:len(written)-1]
	}
	for len(grid) > s.rows {
		s.scrollback = append(s.scrollback, strings.TrimRight(string(grid[0]), " "))
		grid, written = grid[1:], written[1:]
		crow--
	}
	for len(grid) < s.rows {
		grid = append(grid, make([]rune, cols))
		for j := range grid[len(grid)-1] {
			grid[len(grid)-1][j] = ' '
		}
		written = append(written, 0)
	}
	s.grid, s.written, s.cols, s.row, s.col, s.wrapNext = grid, written, cols, max(crow, 0), ccol, false
}

// feed interprets output bytes and returns the terminal's replies.
func (s *vtScreen) feed(b []byte) string {
	data := append(s.pending, b...)
	s.pending = nil
	var replies strings.Builder
	i := 0
	for i < len(data) {
		c := data[i]
		switch {
		case c == 0x1b:
			n, reply, ok := s.escape(data[i:])
			if !ok {
				s.pending = append([]byte(nil), data[i:]...)
				return replies.String()
			}
			replies.WriteString(reply)
			i += n
			continue
		case c == '\r':
			s.col, s.wrapNext = 0, false
		case c == '\n':
			s.lineFeed()
		case c == '\b':
			s.col, s.wrapNext = max(s.col-1, 0), false
		case c == '\t':
			s.col = min((s.col/8+1)*8, s.cols-1)
		case c < 0x20 || c == 0x7f:
		default:
			r, w := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && w == 1 && !utf8.FullRune(data[i:]) {
				s.pending = append([]byte(nil), data[i:]...)
				return replies.String()
			}
			s.put(r)
			i += w
			continue
		}
		i++
	}
	return replies.String()
}

func (s *vtScreen) put(r rune) {
	if s.wrapNext {
		s.col, s.wrapNext = 0, false
		s.lineFeed()
	}
	s.grid[s.row][s.col] = r
	s.written[s.row] = max(s.written[s.row], s.col+1)
	if s.col == s.cols-1 {
		s.wrapNext = true
	} else {
		s.col++
	}
}

func (s *vtScreen) lineFeed() {
	s.wrapNext = false
	if s.row < s.rows-1 {
		s.row++
		return
	}
	if s.saved == nil {
		s.scrollback = append(s.scrollback, strings.TrimRight(string(s.grid[0]), " "))
	}
	s.grid = append(s.grid[1:], s.blankRow())
	s.written = append(s.written[1:], 0)
}

// escape interprets one escape sequence at the start of b: its length,
// the reply, and false when b holds only part of it.
func (s *vtScreen) escape(b []byte) (int, string, bool) {
	if len(b) < 2 {
		return 0, "", false
	}
	switch b[1] {
	case '[':
		for j := 2; j < len(b); j++ {
			if b[j] >= 0x40 && b[j] <= 0x7e {
				return j + 1, s.csi(string(b[2:j]), b[j]), true
			}
		}
		return 0, "", false
	case ']':
		for j := 2; j < len(b); j++ {
			end := 0
			if b[j] == 0x07 {
				end = j + 1
			} else if b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\' {
				end = j + 2
			} else if b[j] == 0x1b && j+1 == len(b) {
				return 0, "", false
			}
			if end > 0 {
				if string(b[2:j]) == "11;?" && s.answer {
					return end, "\x1b]11;rgb:1c1c/1c1c/1c1c\x1b\\", true
				}
				return end, "", true
			}
		}
		return 0, "", false
	case '(', ')':
		if len(b) < 3 {
			return 0, "", false
		}
		return 3, "", true
	}
	return 2, "", true
}

func (s *vtScreen) csi(params string, final byte) string {
	private := strings.HasPrefix(params, "?")
	params = strings.TrimLeft(params, "?>=<")
	var n []int
	for _, p := range strings.Split(params, ";") {
		v, _ := strconv.Atoi(p)
		n = append(n, v)
	}
	arg := func(i, def int) int {
		if i < len(n) && n[i] > 0 {
			return n[i]
		}
		return def
	}
	s.wrapNext = false
	switch final {
	case 'A':
		s.row = max(s.row-arg(0, 1), 0)
	case 'B':
		s.row = min(s.row+arg(0, 1), s.rows-1)
	case 'C':
		s.col = min(s.col+arg(0, 1), s.cols-1)
	case 'D':
		s.col = max(s.col-arg(0, 1), 0)
	case 'G':
		s.col = min(arg(0, 1)-1, s.cols-1)
	case 'H', 'f':
		s.row, s.col = min(arg(0, 1)-1, s.rows-1), min(arg(1, 1)-1, s.cols-1)
	case 'K':
		from, to := s.col, s.cols
		switch arg(0, 0) {
		case 1:
			from, to = 0, s.col+1
		case 2:
			from = 0
		}
		for j := from; j < to; j++ {
			s.grid[s.row][j] = ' '
		}
		if to == s.cols {
			s.written[s.row] = min(s.written[s.row], from)
		}
	case 'J':
		switch arg(0, 0) {
		case 0:
			for j := s.col; j < s.cols; j++ {
				s.grid[s.row][j] = ' '
			}
			s.written[s.row] = min(s.written[s.row], s.col)
			for r := s.row + 1; r < s.rows; r++ {
				s.grid[r] = s.blankRow()
				s.written[r] = 0
			}
		case 1:
			for r := 0; r < s.row; r++ {
				s.grid[r] = s.blankRow()
			}
		case 2, 3:
			s.grid = s.blank()
			s.written = make([]int, s.rows)
		}
	case 'n':
		if arg(0, 0) == 6 && s.answer {
			return "\x1b[" + strconv.Itoa(s.row+1) + ";" + strconv.Itoa(s.col+1) + "R"
		}
	case 'h', 'l':
		if private && (arg(0, 0) == 1049 || arg(0, 0) == 47 || arg(0, 0) == 1047) {
			if final == 'h' && s.saved == nil {
				s.saved, s.grid = s.grid, s.blank()
			} else if final == 'l' && s.saved != nil {
				s.grid, s.saved = s.saved, nil
			}
		}
	}
	return ""
}

// lines is the scrollback followed by the screen, trailing blanks cut.
func (s *vtScreen) linesLocked() []string {
	out := append([]string(nil), s.scrollback...)
	for _, r := range s.grid {
		out = append(out, strings.TrimRight(string(r), " "))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func (s *vtScreen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.linesLocked(), "\n")
}

// waitFor waits until the screen or scrollback shows want; the bound only
// stops a hang.
func (s *vtScreen) waitFor(t testing.TB, want string) string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	wake := time.AfterFunc(time.Until(deadline), func() { s.mu.Lock(); s.cond.Broadcast(); s.mu.Unlock() })
	defer wake.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		text := strings.Join(s.linesLocked(), "\n")
		if strings.Contains(text, want) {
			return text
		}
		if s.done || time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q (closed: %v); it shows:\n%s", want, s.done, text)
		}
		s.cond.Wait()
	}
}

// waitDone waits for the program to close the terminal.
func (s *vtScreen) waitDone() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.done {
		s.cond.Wait()
	}
	return strings.Join(s.linesLocked(), "\n")
}
