package rules

import (
	"errors"
	"testing"

	"github.com/docket-engine/docket/events"
)

// TestARulesFileWithANulIsRefused: Starlark reads a NUL as the end of the
// file, so the rules after one were dropped without a word (found by
// FuzzFormatAllowRule: an amendment appended after a NUL never loaded).
// The file is refused, naming where the NUL is.
func TestARulesFileWithANulIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line, col  int
	}{
		{"between two rules", "prefix_rule(pattern=[\"a\"], decision=\"allow\")\n\x00\nprefix_rule(pattern=[\"rm\"], decision=\"forbidden\")\n", 2, 1},
		{"in a comment", "# ok \x00\nprefix_rule(pattern=[\"rm\"], decision=\"forbidden\")\n", 1, 6},
		{"in a string", "x = 'a\x00'\n", 1, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := LoadSources([]events.RuleSource{{Path: "r.rules", Text: tc.text}}, LoadOptions{})
			var le *LoadError
			if !errors.As(err, &le) || le.File != "r.rules" || le.Line != tc.line || le.Col != tc.col {
				t.Fatalf("loaded %d rules, err %v; want a LoadError at r.rules:%d:%d", s.Len(), err, tc.line, tc.col)
			}
		})
	}
}
