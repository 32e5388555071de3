package rules

import (
	"errors"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

// FuzzLoad feeds arbitrary text to the loader: it must never panic or hang
// (the step limit stops loops), every failure must be a LoadError naming the
// file, and a set that loads must evaluate without panicking.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		precedenceRules,
		`prefix_rule(pattern=["git", ["push", "pull"]], decision="prompt", match=["git push x"], not_match=[["git"]])`,
		`host_executable(name="git", paths=["/usr/bin/git"])`,
		`network_rule(host="a.com", protocol="https", decision="deny")`,
		"while True:\n  pass",
		"prefix_rule(pattern=[\"ls\"], decison=\"allow\")",
		"def f():\n  prefix_rule(pattern=[\"a\"])\nf()",
		"[prefix_rule(pattern=[str(i)]) for i in range(5)]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 || strings.Contains(text, "*") {
			// Keep inputs small and avoid repetition operators that
			// allocate gigabytes; those are memory, not parser, limits.
			return
		}
		s, err := LoadSources([]events.RuleSource{{Path: "fuzz.rules", Text: text}}, LoadOptions{MaxSteps: 100_000})
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || le.File != "fuzz.rules" || !strings.HasPrefix(err.Error(), "fuzz.rules") {
				t.Fatalf("error %v (%T) does not name the file", err, err)
			}
			return
		}
		for _, argv := range [][]string{{"git", "push"}, {"ls"}, {"/usr/bin/git", "status"}, {"bash", "-lc", "a && b"}, {}} {
			ev := s.Evaluate(argv)
			if ev.Decision.rank() == 0 && len(ev.Matched) > 0 {
				t.Fatalf("matches without a decision: %+v", ev)
			}
		}
	})
}
