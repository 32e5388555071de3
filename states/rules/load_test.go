package rules

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

func loadText(t *testing.T, text string) (*Set, error) {
	t.Helper()
	return LoadSources([]events.RuleSource{{Path: "/r/test.rules", Text: text}}, LoadOptions{MaxSteps: 200_000})
}

func mustLoad(t *testing.T, text string) *Set {
	t.Helper()
	s, err := loadText(t, text)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return s
}

func TestACodexDefaultRulesFileLoadsUnchanged(t *testing.T) {
	s, err := Load([]string{"testdata/codex_default.rules"}, os.ReadFile, LoadOptions{})
	if err != nil {
		t.Fatalf("Codex rules file failed to load: %v", err)
	}
	if s.Len() != 6 {
		t.Fatalf("loaded %d prefix rules, want 6", s.Len())
	}
	if n := s.NetworkRules(); len(n) != 1 || n[0].Host != "api.example.com" || n[0].Decision != Allow {
		t.Fatalf("network rules = %+v", n)
	}
	cases := []struct {
		argv []string
		want Decision
		line int
	}{
		{[]string{"gh", "pr", "view", "12"}, Prompt, 5},
		{[]string{"git", "push", "origin"}, Prompt, 24},
		{[]string{"git", "fetch"}, Prompt, 24},
		{[]string{"git", "reset", "--hard", "HEAD"}, Forbidden, 32},
		{[]string{"cargo", "test"}, Allow, 38},
		{[]string{"echo", "Hello, world!"}, Allow, 51},
		{[]string{"git", "status"}, None, 0},
	}
	for _, c := range cases {
		ev := s.Evaluate(c.argv)
		m, ok := ev.Strictest()
		if ev.Decision != c.want || (c.want != None && (!ok || m.Line != c.line || m.File != "testdata/codex_default.rules")) {
			t.Errorf("Evaluate(%q) = %s %+v; want %s at line %d", c.argv, ev.Decision, m, c.want, c.line)
		}
	}
	if m, _ := s.Evaluate([]string{"git", "reset", "--hard"}).Strictest(); !strings.Contains(m.Justification, "git stash") {
		t.Errorf("justification not carried: %+v", m)
	}
}

func TestBadRulesFilesFailWithFileAndLine(t *testing.T) {
	tests := []struct {
		name, text string
		line       int
		msg        string
	}{
		{"syntax error", "prefix_rule(pattern=[\"ls\"]\n\nprefix_rule(", 3, "got identifier, want ','"},
		{"unknown keyword", "\nprefix_rule(pattern=[\"ls\"], decison=\"allow\")", 2, `unexpected keyword argument "decison" (did you mean decision?)`},
		{"bad decision", "prefix_rule(pattern=[\"ls\"])\nprefix_rule(pattern=[\"rm\"], decision=\"deny\")", 2, `decision "deny" is not one of allow, prompt, forbidden`},
		{"failing match example", "x = 1\nprefix_rule(\n  pattern=[\"git\", \"push\"],\n  match=[\"git pull\"],\n)", 2, `match example ["git" "pull"] does not match pattern git push`},
		{"failing not_match example", "prefix_rule(pattern=[\"git\", [\"push\", \"pull\"]], not_match=[[\"git\", \"pull\", \"x\"]])", 1, "not_match example"},
		{"loop that never ends", "x = 0\nwhile True:\n    x += 1\n", 3, "too many steps"},
		{"empty pattern", "prefix_rule(pattern=[])", 1, "pattern cannot be empty"},
		{"empty alternatives", "prefix_rule(pattern=[\"git\", []])", 1, "alternatives cannot be empty"},
		{"non-string token", "prefix_rule(pattern=[\"git\", 3])", 1, "pattern element 1 must be a string or a list of strings"},
		{"pattern not a list", "prefix_rule(pattern=\"git\")", 1, "pattern must be a list"},
		{"blank justification", "prefix_rule(pattern=[\"ls\"], justification=\"  \")", 1, "justification cannot be empty"},
		{"missing pattern", "prefix_rule(decision=\"allow\")", 1, "missing argument for pattern"},
		{"bad example string", "prefix_rule(pattern=[\"ls\"], match=[\"ls 'x\"])", 1, "unterminated single quote"},
		{"unknown function", "\n\nprefx_rule(pattern=[\"ls\"])", 3, "undefined: prefx_rule"},
		{"load is refused", "load(\"x.star\", \"y\")", 1, "load() is not supported"},
		{"recursion is refused", "def f(n):\n    return f(n)\nf(1)", 2, "called recursively"},
		{"host_executable relative path", "host_executable(name=\"git\", paths=[\"bin/git\"])", 1, "must be absolute"},
		{"host_executable wrong basename", "host_executable(name=\"git\", paths=[\"/usr/bin/gitx\"])", 1, "must have basename"},
		{"network_rule bad protocol", "network_rule(host=\"a.com\", protocol=\"ftp\", decision=\"allow\")", 1, "protocol must be one of"},
		{"bad reviewer", "prefix_rule(pattern=[\"ls\"], reviewer=\"bob\")", 1, "reviewer must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadText(t, tt.text)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T); want a *LoadError", err, err)
			}
			if le.File != "/r/test.rules" || le.Line != tt.line {
				t.Errorf("error at %s:%d; want /r/test.rules:%d (%v)", le.File, le.Line, tt.line, err)
			}
			if !strings.Contains(err.Error(), tt.msg) || !strings.HasPrefix(err.Error(), "/r/test.rules:") {
				t.Errorf("error %q does not name the file and say %q", err, tt.msg)
			}
		})
	}
}

func TestOneBadFileFailsTheWholeSetUnlessLenient(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "a.rules")
	bad := filepath.Join(dir, "b.rules")
	missing := filepath.Join(dir, "c.rules")
	writeFile(t, good, `prefix_rule(pattern=["ls"])`)
	writeFile(t, bad, "prefix_rule(pattern=[\"rm\"], decision=\"nope\")\n")

	s, err := Load([]string{good, bad, missing}, os.ReadFile, LoadOptions{})
	if err == nil || s != nil {
		t.Fatalf("strict load with a bad file = %v, %v; want nil set and an error", s, err)
	}
	for _, want := range []string{bad + ":1:", missing + ": cannot read rules file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}

	s, err = Load([]string{good, bad, missing}, os.ReadFile, LoadOptions{Lenient: true})
	if err != nil {
		t.Fatalf("lenient load: %v", err)
	}
	if s.Evaluate([]string{"ls"}).Decision != Allow {
		t.Error("the good file's rule is missing after a lenient load")
	}
	if got := s.Skipped(); len(got) != 2 || got[0].File != missing || got[1].File != bad {
		t.Errorf("Skipped() = %v; want the missing and the bad file", got)
	}
	if src := s.Sources(); len(src) != 1 || src[0].Path != good {
		t.Errorf("Sources() = %v; want only the good file", src)
	}
}

func TestAFileThatFailsHalfwayContributesNoRules(t *testing.T) {
	s, err := LoadSources([]events.RuleSource{
		{Path: "a.rules", Text: "prefix_rule(pattern=[\"ls\"])\nprefix_rule(pattern=[\"x\"], decision=\"bad\")"},
	}, LoadOptions{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 0 || s.Evaluate([]string{"ls"}).Decision != None {
		t.Fatalf("rules from a failed file leaked into the set: %v", s.Rules())
	}
}

func TestRecordedSourcesReloadToTheSameDecisions(t *testing.T) {
	s, err := Load([]string{"testdata/codex_default.rules"}, os.ReadFile, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := LoadSources(s.Sources(), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Digest() != again.Digest() || s.Digest() == (&Set{}).Digest() {
		t.Fatalf("digest changed across reload: %s vs %s", s.Digest(), again.Digest())
	}
	for _, argv := range [][]string{{"git", "push"}, {"cargo", "build"}, {"ls"}} {
		a, b := s.Evaluate(argv), again.Evaluate(argv)
		if a.Decision != b.Decision || len(a.Matched) != len(b.Matched) {
			t.Errorf("%q: %v vs %v", argv, a, b)
		}
	}
}

func TestExamplesAreShellSplitLikeShlex(t *testing.T) {
	for in, want := range map[string][]string{
		`git commit -m "a b"`: {"git", "commit", "-m", "a b"},
		`echo 'it''s' x\ y`:   {"echo", "its", "x y"},
		`echo "a\"b\$c\d"`:    {"echo", `a"b$c\d`},
		"ls # comment":        {"ls"},
		"a#b":                 {"a#b"},
		`''`:                  {""},
	} {
		got, err := shellSplit(in)
		if err != nil || strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Errorf("shellSplit(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{`"a`, `'a`, `a\`} {
		if _, err := shellSplit(in); err == nil {
			t.Errorf("shellSplit(%q) succeeded; want an error", in)
		}
	}
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
