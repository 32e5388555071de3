package rules

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
)

// doubling is the file from the issue: a list doubled forty times passes
// the step bound (a few steps a doubling) and would need terabytes.
const doubling = `x = [1]
for i in range(40):
    x = x + x
prefix_rule(pattern=["ls"], decision="allow")
`

func TestAFileThatGrowsWithoutEndFailsNamingTheFile(t *testing.T) {
	_, err := LoadSources([]events.RuleSource{{Path: "/p/.docket/rules/grow.rules", Text: doubling}}, LoadOptions{MaxMemory: 64 << 20})
	if err == nil {
		t.Fatal("the doubling file loaded")
	}
	if !errors.Is(err, ErrTooMuchMemory) || !strings.Contains(err.Error(), "/p/.docket/rules/grow.rules:3") {
		t.Fatalf("error %q: want ErrTooMuchMemory naming the file and line", err)
	}
}

func TestCancellingTheContextInterruptsLoading(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	// The file cancels the load itself once it is running, through a
	// builtin, so the test does not depend on timing.
	src := events.RuleSource{Path: "/h/rules/slow.rules", Text: "prefix_rule(pattern=['ls'], decision='allow')\nwhile True:\n    pass\n"}
	calls := 0
	opts := LoadOptions{Context: ctx, MaxSteps: 1 << 62}
	set := &Set{byProgram: map[string][]*Rule{}, hosts: map[string][]string{}}
	// Wrap prefix_rule: the first call cancels the context.
	_, err := evalFileWith(src, set, opts, func() { calls++; cancel() })
	if calls != 1 {
		t.Fatalf("the hook ran %d times", calls)
	}
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "/h/rules/slow.rules") || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("error %q: want context.Canceled naming the file", err)
	}
	// An already-cancelled context loads nothing.
	if _, err := LoadSources([]events.RuleSource{src}, opts); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestARunawayLoopSaysTooManySteps(t *testing.T) {
	_, err := LoadSources([]events.RuleSource{{Path: "/h/rules/loop.rules", Text: "while True:\n    pass\n"}}, LoadOptions{MaxSteps: 10_000})
	if !errors.Is(err, ErrTooManySteps) || !strings.Contains(err.Error(), "/h/rules/loop.rules:") {
		t.Fatalf("error %v: want ErrTooManySteps naming the file", err)
	}
}

func TestAFileThatNeverEndsWithinItsStepsHitsTheTimeBound(t *testing.T) {
	// Each step scans a megabyte: within the default step bound this
	// would evaluate for minutes.
	src := events.RuleSource{Path: "/h/rules/slow.rules", Text: "x = \"a\" * 1000000\nwhile True:\n    x.find(\"b\")\n"}
	_, err := LoadSources([]events.RuleSource{src}, LoadOptions{MaxTime: 50 * time.Millisecond})
	if !errors.Is(err, ErrTooSlow) || !strings.Contains(err.Error(), "/h/rules/slow.rules:3") {
		t.Fatalf("error %v: want ErrTooSlow naming the file and line", err)
	}
}

func evalFileWith(src events.RuleSource, set *Set, opts LoadOptions, hook func()) (*fileRules, error) {
	opts.onRule = hook
	return evalFile(src, set, opts)
}
