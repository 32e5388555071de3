package replaytest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay"
	"github.com/docket-engine/docket/replay/replaytest"
)

// fakeTB records what a helper reports, as testing's own tests of t do:
// Fatalf ends the goroutine as the real one does. Any other method of
// testing.TB panics on the nil embedded interface, so a helper that uses
// one shows up here.
type fakeTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
	fatals []string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
	f.mu.Unlock()
	runtime.Goexit()
}

// run calls fn with a fake TB on a goroutine of its own (Fatalf exits it)
// and returns the fake and what fn returned.
func run(fn func(testing.TB) bool) (*fakeTB, bool) {
	f := &fakeTB{}
	var ok bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		ok = fn(f)
	}()
	<-done
	return f, ok
}

// rulesJournal was recorded with a user rules file forbidding `git push`
// (call c1) and allowing `printf` (call c2).
const rulesJournal = "testdata/rules.docket"

const recordedRules = `prefix_rule(pattern=["git", "push"], decision="forbidden")` + "\n" + `prefix_rule(pattern=["printf"], decision="allow")` + "\n"

// homeWithRules makes a Docket home whose rules/default.rules holds text.
func homeWithRules(t *testing.T, text string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "rules", "default.rules"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// projectWithRules makes a workspace whose .docket/rules/default.rules
// holds text.
func projectWithRules(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".docket", "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".docket", "rules", "default.rules"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// recordedSources are the rules the journal recorded.
func recordedSources(t *testing.T) []events.RuleSource {
	t.Helper()
	ss, err := replay.SessionStart(rulesJournal)
	if err != nil {
		t.Fatal(err)
	}
	if len(ss.Rules) != 1 || ss.Rules[0].Text != recordedRules {
		t.Fatalf("the journal recorded %+v", ss.Rules)
	}
	return ss.Rules
}

func TestVerifyPassesOnUnchangedRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []replaytest.Option
	}{
		{"recorded rules (default)", nil},
		{"recorded rules (named)", []replaytest.Option{replaytest.RecordedRules()}},
		{"recorded rules after others", []replaytest.Option{
			replaytest.WithOptions(replay.Options{Rules: []events.RuleSource{}}), replaytest.CurrentRules(homeWithRules(t, "# none\n"), ""), replaytest.RecordedRules()}},
		{"given rules, the same text at the same path", []replaytest.Option{replaytest.WithOptions(replay.Options{Rules: recordedSources(t)})}},
		{"current rules, the same file", []replaytest.Option{replaytest.CurrentRules(homeWithRules(t, recordedRules), "")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := run(func(tb testing.TB) bool { return replaytest.Verify(tb, rulesJournal, tc.opts...) })
			if !ok || len(f.errors)+len(f.fatals) != 0 {
				t.Fatalf("Verify = %v, errors %q, fatals %q", ok, f.errors, f.fatals)
			}
		})
	}
}

// firstTransition is the seq of call's first transition whose body
// contains cause.
func firstTransition(t *testing.T, path, call, cause string) uint64 {
	t.Helper()
	var seq uint64
	err := journal.Scan(path, 1, func(r events.Record) error {
		if seq != 0 || r.Kind != events.KindTransition || r.CallID != call {
			return nil
		}
		if b, err := r.Decode(); err == nil && strings.Contains(fmt.Sprintf("%+v", b), cause) {
			seq = r.Seq
		}
		return nil
	})
	if err != nil || seq == 0 {
		t.Fatalf("no transition of %s with %s in %s: %v", call, cause, path, err)
	}
	return seq
}

// A rules file that no longer forbids `git push` (the line now forbids
// `git pull`, so the `printf` rule keeps its line) changes call c1's
// decision: the test fails there, with both sides shown.
func TestVerifyFailsOnAChangedRule(t *testing.T) {
	want := firstTransition(t, rulesJournal, "c1", "rule_forbidden")
	changed := strings.Replace(recordedRules, `"push"`, `"pull"`, 1)
	f, ok := run(func(tb testing.TB) bool {
		return replaytest.Verify(tb, rulesJournal, replaytest.CurrentRules(homeWithRules(t, changed), ""))
	})
	if ok || len(f.errors) != 1 || len(f.fatals) != 0 {
		t.Fatalf("Verify = %v, errors %q, fatals %q; want one error", ok, f.errors, f.fatals)
	}
	msg := f.errors[0]
	t.Logf("the report:\n%s", msg)
	head := fmt.Sprintf("replay of %s (current rules, 1 files) diverged at seq %d, call c1, record transition\n", rulesJournal, want)
	if !strings.HasPrefix(msg, head) {
		t.Fatalf("the report begins\n%q\nwant\n%q", firstLine(msg), head)
	}
	for _, line := range []string{`-   "Cause": "rule_forbidden",`, `-   "To": "denied"`, `+   "Cause": "policy_skip",`, `+   "To": "sandboxed"`} {
		if !strings.Contains(msg, "\n"+line+"\n") {
			t.Fatalf("the report lacks the line %q:\n%s", line, msg)
		}
	}
}

// The recorded `printf` allow rule, moved from the user's rules into the
// project's, still lets c2 skip the prompt but no longer lifts the
// sandbox: a project rule never does. The current rules are placed where
// the session had them, so c1 (decided by the user's file, unchanged)
// matches and c2 alone diverges.
func TestVerifyFailsWhenAnAllowRuleMovesIntoTheProject(t *testing.T) {
	want := firstTransition(t, rulesJournal, "c2", "rule_allow")
	lines := strings.SplitAfter(recordedRules, "\n")
	home := homeWithRules(t, lines[0])
	project := projectWithRules(t, "# line 1\n"+lines[1])
	f, ok := run(func(tb testing.TB) bool {
		return replaytest.Verify(tb, rulesJournal, replaytest.CurrentRules(home, project))
	})
	if ok || len(f.errors) != 1 || len(f.fatals) != 0 {
		t.Fatalf("Verify = %v, errors %q, fatals %q; want one error", ok, f.errors, f.fatals)
	}
	msg := f.errors[0]
	t.Logf("the report:\n%s", msg)
	head := fmt.Sprintf("replay of %s (current rules, 2 files) diverged at seq %d, call c2, record transition\n", rulesJournal, want)
	if !strings.HasPrefix(msg, head) {
		t.Fatalf("the report begins\n%q\nwant\n%q", firstLine(msg), head)
	}
	if !strings.Contains(msg, "\n-   \"To\": \"unsandboxed\"\n") || !strings.Contains(msg, "\n+   \"To\": \"sandboxed\"\n") || !strings.Contains(msg, "a project rule") {
		t.Fatalf("the report does not show the sandbox kept:\n%s", msg)
	}
}

// A file that is not a journal, or is missing, stops the test with a
// message naming it.
func TestVerifyStopsOnAnUnreadableJournal(t *testing.T) {
	notJournal := filepath.Join(t.TempDir(), "notes.docket")
	if err := os.WriteFile(notJournal, []byte("not a journal"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{notJournal, filepath.Join(t.TempDir(), "missing.docket")} {
		for _, opts := range [][]replaytest.Option{nil, {replaytest.CurrentRules("", "")}} {
			f, ok := run(func(tb testing.TB) bool { return replaytest.Verify(tb, path, opts...) })
			if ok || len(f.fatals) != 1 || len(f.errors) != 0 {
				t.Fatalf("%s: Verify = %v, errors %q, fatals %q; want one fatal", path, ok, f.errors, f.fatals)
			}
			if !strings.Contains(f.fatals[0], path) {
				t.Fatalf("the message does not name %s: %s", path, f.fatals[0])
			}
		}
	}
}

// A rules file that fails to load stops the test, naming the file.
func TestVerifyStopsOnABrokenRulesFile(t *testing.T) {
	home := homeWithRules(t, "prefix_rule(\n")
	f, ok := run(func(tb testing.TB) bool {
		return replaytest.Verify(tb, rulesJournal, replaytest.CurrentRules(home, ""))
	})
	if ok || len(f.fatals) != 1 || !strings.Contains(f.fatals[0], filepath.Join(home, "rules", "default.rules")) {
		t.Fatalf("Verify = %v, errors %q, fatals %q; want one fatal naming the rules file", ok, f.errors, f.fatals)
	}
}

func firstLine(s string) string {
	if i := strings.Index(s, "\n"); i >= 0 {
		return s[:i+1]
	}
	return s
}
