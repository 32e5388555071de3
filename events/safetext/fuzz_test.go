package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// FuzzRender: whatever the model sends, Line, Text and Join return valid
// UTF-8 with no unsafe rune left (Text keeps newlines and tabs), and a
// shell parses Join's output back into the same argv. Seeds are under
// testdata/fuzz/FuzzRender.
func FuzzRender(f *testing.F) {
	for _, h := range hostile {
		f.Add(h.s, "git status")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a)+len(b) > 1<<14 {
			return
		}
		for name, got := range map[string]string{"Line": Line(a), "Text": Text(a), "Join": Join([]string{a, b}), "Fold": Fold(Line(a), 7)} {
			if !utf8.ValidString(got) {
				t.Fatalf("%s(%q) = %q is not UTF-8", name, a, got)
			}
			for _, r := range got {
				keep := (name == "Text" && (r == '\n' || r == '\t')) || (name == "Fold" && r == '\n')
				if unsafeRune(r) && !keep {
					t.Fatalf("%s(%q) = %q holds %U", name, a, got, r)
				}
			}
		}
		argv := []string{a, b}
		for _, s := range argv {
			// No argv holds NUL; the reference parser decodes only valid
			// UTF-8 the way bash does.
			if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
				return
			}
		}
		if got := parseBack(t, Join(argv)); len(got) != 2 || got[0] != a || got[1] != b {
			t.Fatalf("Join(%q) = %s reads back as %q", argv, Join(argv), got)
		}
	})
}

// parseBack reads a command line the way a POSIX shell with $'…' does.
func parseBack(t *testing.T, line string) []string {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		t.Fatalf("parse %q: %v", line, err)
	}
	if len(f.Stmts) != 1 {
		t.Fatalf("%q is %d statements", line, len(f.Stmts))
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		t.Fatalf("%q is not a simple command", line)
	}
	out, err := expand.Fields(&expand.Config{}, call.Args...)
	if err != nil {
		t.Fatalf("expand %q: %v", line, err)
	}
	return out
}
