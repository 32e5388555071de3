package replaytest_test

import (
	"strings"
	"testing"

	"github.com/docket-engine/docket/replay/replaytest"
)

func TestDiff(t *testing.T) {
	lines := func(n int, prefix string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(prefix + string(rune('a'+i)) + "\n")
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	for _, tc := range []struct {
		name, want, got, diff string
	}{
		{"equal texts give nothing", "a\nb", "a\nb", ""},
		{"a changed line is a removal and an addition", "a\nb\nc", "a\nB\nc", "  a\n- b\n+ B\n  c\n"},
		{"an inserted line shifts nothing else", "a\nb\nc", "a\nb\nx\nc", "  a\n  b\n+ x\n  c\n"},
		{"a removed line", "a\nb\nc", "a\nc", "  a\n- b\n  c\n"},
		{"far shared lines are elided", lines(10, "") + "\nz", lines(10, "") + "\nZ",
			"  ... (7 unchanged lines)\n  h\n  i\n  j\n- z\n+ Z\n"},
		{"one side empty", "", "x", "- \n+ x\n"},
		{"a one-line placeholder against a record", "(the replay produced no such record)", "{\n}", "- (the replay produced no such record)\n+ {\n+ }\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := replaytest.Diff(tc.want, tc.got); got != tc.diff {
				t.Fatalf("Diff =\n%q\nwant\n%q", got, tc.diff)
			}
		})
	}
}

// Past the matching table's bound the diff is still exact: every line of
// the differing middle appears, removed then added.
func TestDiffOfHugeRecordsStaysExact(t *testing.T) {
	var w, g strings.Builder
	for i := range 3000 {
		w.WriteString("w" + strings.Repeat("x", i%7) + "\n")
		g.WriteString("g" + strings.Repeat("x", i%7) + "\n")
	}
	d := replaytest.Diff("head\n"+w.String()+"tail", "head\n"+g.String()+"tail")
	if strings.Count(d, "\n- ") != 3000 || strings.Count(d, "\n+ ") != 3000 || !strings.HasPrefix(d, "  head\n") || !strings.HasSuffix(d, "  tail\n") {
		t.Fatalf("the diff of two 3000-line middles lost lines: %d removed, %d added", strings.Count(d, "\n- "), strings.Count(d, "\n+ "))
	}
}

// Diff never panics, is empty exactly when the texts are equal, and every
// line it shows is a line of one side.
func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc", "a\nB\nc")
	f.Add("", "x")
	f.Add("{\n  \"a\": 1\n}", "(the replay produced no such record)")
	f.Fuzz(func(t *testing.T, want, got string) {
		d := replaytest.Diff(want, got)
		if (d == "") != (want == got) {
			t.Fatalf("Diff(%q, %q) = %q", want, got, d)
		}
		lines := map[string]bool{}
		for _, l := range strings.Split(want, "\n") {
			lines[l] = true
		}
		for _, l := range strings.Split(got, "\n") {
			lines[l] = true
		}
		for _, l := range strings.Split(strings.TrimSuffix(d, "\n"), "\n") {
			if d == "" || strings.HasPrefix(l, "  ... (") {
				continue
			}
			if len(l) < 2 || !lines[l[2:]] {
				t.Fatalf("Diff(%q, %q) shows %q, a line of neither", want, got, l)
			}
		}
	})
}
