package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

// thousandRules builds 1,000 prefix rules over 100 programs with 10
// subcommands each, every tenth one a prompt.
func thousandRules(b *testing.B) *Set {
	var sb strings.Builder
	for p := 0; p < 100; p++ {
		for sub := 0; sub < 10; sub++ {
			d := "allow"
			if sub == 9 {
				d = "prompt"
			}
			fmt.Fprintf(&sb, "prefix_rule(pattern=[\"prog%d\", \"sub%d\", [\"a\", \"b\"]], decision=%q)\n", p, sub, d)
		}
	}
	s, err := LoadSources([]events.RuleSource{{Path: "bench.rules", Text: sb.String()}}, LoadOptions{})
	if err != nil || s.Len() != 1000 {
		b.Fatalf("load: %v (%d rules)", err, s.Len())
	}
	return s
}

func BenchmarkEvaluateAgainst1000PrefixRules(b *testing.B) {
	s := thousandRules(b)
	argv := []string{"prog57", "sub9", "b", "--flag", "file"}
	b.ReportAllocs()
	for b.Loop() {
		if s.Evaluate(argv).Decision != Prompt {
			b.Fatal("want prompt")
		}
	}
}

func BenchmarkEvaluateScriptAgainst1000PrefixRules(b *testing.B) {
	s := thousandRules(b)
	argv := []string{"bash", "-lc", "prog1 sub1 a && prog2 sub2 b | prog99 sub3 a"}
	b.ReportAllocs()
	for b.Loop() {
		if !s.Evaluate(argv).AllAllowed() {
			b.Fatal("want all allowed")
		}
	}
}

func BenchmarkLoad1000PrefixRules(b *testing.B) {
	for b.Loop() {
		thousandRules(b)
	}
}
