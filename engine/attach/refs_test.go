package attach

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, prompt, text string
		paths              []string
		err                bool
	}{
		{name: "no reference", prompt: "fix the build", text: "fix the build"},
		{name: "one reference", prompt: "fix @main.go now", text: "fix @main.go now", paths: []string{"main.go"}},
		{name: "reference at the start", prompt: "@a/b.go explain", text: "@a/b.go explain", paths: []string{"a/b.go"}},
		{name: "trailing punctuation is not the path", prompt: "see @main.go, @util.go.", text: "see @main.go, @util.go.", paths: []string{"main.go", "util.go"}},
		{name: "quoted path with a space", prompt: `read @"my notes.txt" please`, text: `read @"my notes.txt" please`, paths: []string{"my notes.txt"}},
		{name: "@@ is a literal @", prompt: "ping @@team about @x", text: "ping @team about @x", paths: []string{"x"}},
		{name: "an e-mail address is text", prompt: "mail a@b.com", text: "mail a@b.com"},
		{name: "a lone @ is text", prompt: "look @ this", text: "look @ this"},
		{name: "@ then only punctuation is text", prompt: "wow @.", text: "wow @."},
		{name: "after a newline", prompt: "one\n@two", text: "one\n@two", paths: []string{"two"}},
		{name: "after unicode space", prompt: "x\u00a0@y", text: "x\u00a0@y", paths: []string{"y"}},
		{name: "unterminated quote", prompt: `read @"oops`, err: true},
		{name: "empty quotes", prompt: `read @""`, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, refs, err := Parse(tc.prompt)
			if tc.err {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("Parse(%q) err = %v, want a SyntaxError", tc.prompt, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, r := range refs {
				paths = append(paths, r.Path)
				if tok := tc.prompt[r.Start:r.End]; !strings.HasPrefix(tok, "@") || !strings.Contains(tok, r.Path) {
					t.Errorf("ref %q spans %q", r.Path, tok)
				}
			}
			if text != tc.text || !reflect.DeepEqual(paths, tc.paths) {
				t.Fatalf("Parse(%q) = %q, %q; want %q, %q", tc.prompt, text, paths, tc.text, tc.paths)
			}
		})
	}
}

func TestPartial(t *testing.T) {
	for _, tc := range []struct {
		input, query string
		at           int
		ok           bool
	}{
		{"fix @ma", "ma", 4, true},
		{"@", "", 0, true},
		{`read @"my no`, "my no", 5, true},
		{"fix @main.go ", "", 0, false},
		{"mail a@b", "", 0, false},
		{"ping @@te", "", 0, false},
		{"no reference", "", 0, false},
		{`done @"a b" `, "", 0, false},
	} {
		q, at, ok := Partial(tc.input)
		if q != tc.query || ok != tc.ok || (ok && at != tc.at) {
			t.Errorf("Partial(%q) = %q, %d, %v; want %q, %d, %v", tc.input, q, at, ok, tc.query, tc.at, tc.ok)
		}
	}
}

// TestTokenRoundTrips: what Token writes, Parse reads back as the path.
func TestTokenRoundTrips(t *testing.T) {
	for _, p := range []string{"main.go", "dir/with space.txt", "ends.with.dot.", "x"} {
		_, refs, err := Parse("see " + Token(p) + " now")
		if err != nil || len(refs) != 1 || refs[0].Path != p {
			t.Errorf("Token(%q) = %s parses as %+v, %v", p, Token(p), refs, err)
		}
	}
}

// FuzzParse: Parse never panics, its references lie inside the prompt in
// order, each token starts with @ and contains its path, and the text is
// the prompt with each @@ made one @.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "@", "@@", "@a", `@"a b"`, `@"`, "x @y.go, z", "a@b", "@@@x", "\u00a0@é", "@.", `@""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		text, refs, err := Parse(prompt)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset >= len(prompt) || prompt[se.Offset] != '@' {
				t.Fatalf("Parse(%q) error %v does not point at an @", prompt, err)
			}
			return
		}
		prev := 0
		for _, r := range refs {
			if r.Start < prev || r.End > len(prompt) || r.Start >= r.End || prompt[r.Start] != '@' || r.Path == "" ||
				!strings.Contains(prompt[r.Start:r.End], r.Path) {
				t.Fatalf("Parse(%q): bad ref %+v", prompt, r)
			}
			prev = r.End
		}
		if len(text) > len(prompt) || strings.Count(text, "@") > strings.Count(prompt, "@") {
			t.Fatalf("Parse(%q) text %q is not the prompt unescaped", prompt, text)
		}
	})
}
