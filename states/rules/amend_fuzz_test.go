package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

// FuzzFormatAllowRule formats an "always" answer's prefix (the model
// proposes its tokens, NUL-separated here) as the rule line written to the
// user's rules file: it is refused, or appended to any file that loaded it
// loads again with exactly one more rule, an allow of exactly those tokens
// (a token cannot break out of its string into Starlark).
func FuzzFormatAllowRule(f *testing.F) {
	f.Add("git\x00push", "")
	f.Add(`a"], decision="forbidden")#`, `prefix_rule(pattern=["ls"], decision="prompt")`)
	f.Add("x\\\x00\n\x00\u2028\x00\x7f\x00'", "")
	f.Add("", "# comment without a newline")
	f.Add("\x00", "")
	f.Add("{prompt}\x00$(id)", "x = 1\n")
	f.Fuzz(func(t *testing.T, joined, before string) {
		pattern := strings.Split(joined, "\x00")
		line, err := FormatAllowRule(pattern)
		if err != nil {
			return
		}
		if strings.ContainsAny(line, "\n\r") {
			t.Fatalf("the rule is not one line: %q", line)
		}
		base, err := LoadSources([]events.RuleSource{{Path: "r.rules", Text: before}}, LoadOptions{MaxSteps: 10_000})
		if err != nil {
			return // the file was already broken: the amendment is not to blame
		}
		add, _, written := AppendRule([]byte(before), line)
		text := before + string(add)
		s, err := LoadSources([]events.RuleSource{{Path: "r.rules", Text: text}}, LoadOptions{MaxSteps: 10_000})
		if err != nil {
			t.Fatalf("the rules file no longer loads after adding %q: %v", line, err)
		}
		if written && s.Len() != base.Len()+1 {
			t.Fatalf("adding %q made %d rules from %d", line, s.Len(), base.Len())
		}
		r := s.rules[len(s.rules)-1]
		if written && (r.Decision != Allow || len(r.Pattern) != len(pattern)) {
			t.Fatalf("added %+v for %q", r, pattern)
		}
		for i, alts := range r.Pattern {
			if written && !slices.Equal(alts, []string{pattern[i]}) {
				t.Fatalf("token %d %q loaded as %q", i, pattern[i], alts)
			}
		}
	})
}
