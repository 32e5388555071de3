package rules

import (
	"reflect"
	"testing"
)

const precedenceRules = `
prefix_rule(pattern=["git"], decision="allow")
prefix_rule(pattern=["git", "push"], decision="prompt", justification="pushes are reviewed")
prefix_rule(pattern=["git", "push", "--force"], decision="forbidden", justification="never force")
prefix_rule(pattern=["gh", "pr", ["view", "list"]], decision="allow")
prefix_rule(pattern=[["npm", "pnpm"], "test"], decision="allow")
prefix_rule(pattern=["ls"])
prefix_rule(pattern=["make"], decision="allow")
prefix_rule(pattern=["curl"], decision="forbidden")
`

func TestTheStrictestMatchingRuleWins(t *testing.T) {
	s := mustLoad(t, precedenceRules)
	tests := []struct {
		argv    []string
		want    Decision
		matched int
	}{
		{[]string{"git", "status"}, Allow, 1},
		{[]string{"git", "push", "origin"}, Prompt, 2},
		{[]string{"git", "push", "--force", "origin"}, Forbidden, 3},
		{[]string{"git"}, Allow, 1},
		{[]string{"gh", "pr", "view", "1"}, Allow, 1},
		{[]string{"gh", "pr", "list"}, Allow, 1},
		{[]string{"gh", "pr", "merge"}, None, 0},
		{[]string{"gh", "pr"}, None, 0},
		{[]string{"npm", "test"}, Allow, 1},
		{[]string{"pnpm", "test", "--watch"}, Allow, 1},
		{[]string{"yarn", "test"}, None, 0},
		{[]string{"ls", "-l"}, Allow, 1},
		{[]string{"lsof"}, None, 0},
		{[]string{}, None, 0},
	}
	for _, tt := range tests {
		ev := s.Evaluate(tt.argv)
		if ev.Decision != tt.want || len(ev.Matched) != tt.matched {
			t.Errorf("Evaluate(%q) = %s with %d matches; want %s with %d", tt.argv, ev.Decision, len(ev.Matched), tt.want, tt.matched)
		}
	}
	m, _ := s.Evaluate([]string{"git", "push", "--force"}).Strictest()
	want := Match{File: "/r/test.rules", Line: 4, Pattern: []string{"git", "push", "--force"}, Decision: Forbidden, Justification: "never force"}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("Strictest() = %+v; want %+v", m, want)
	}
}

func TestRulesInLaterFilesCannotWeakenEarlierOnes(t *testing.T) {
	s := mustLoad(t, "prefix_rule(pattern=[\"rm\"], decision=\"forbidden\")\nprefix_rule(pattern=[\"rm\", \"-r\"], decision=\"allow\")")
	if d := s.Evaluate([]string{"rm", "-r", "x"}).Decision; d != Forbidden {
		t.Fatalf("decision = %s; want forbidden to win over a later, longer allow", d)
	}
}

func TestEveryScriptSegmentMustHitAllowForAllAllowed(t *testing.T) {
	s := mustLoad(t, precedenceRules)
	tests := []struct {
		script     string
		decision   Decision
		allAllowed bool
	}{
		{"make build && npm test", Allow, true},
		{"make build && cat x", Allow, false},
		{"make && git push", Prompt, false},
		{"ls | curl x", Forbidden, false},
		{"cat a", None, false},
	}
	for _, tt := range tests {
		ev := s.Evaluate([]string{"bash", "-lc", tt.script})
		if ev.Decision != tt.decision || ev.AllAllowed() != tt.allAllowed || !ev.Plain {
			t.Errorf("%q: decision %s allAllowed %v plain %v; want %s %v true", tt.script, ev.Decision, ev.AllAllowed(), ev.Plain, tt.decision, tt.allAllowed)
		}
	}
}

func TestDynamicScriptsCannotHideFromPromptOrForbiddenRules(t *testing.T) {
	s := mustLoad(t, precedenceRules)
	for script, want := range map[string]Decision{
		`git push "$REMOTE"`:           Prompt,
		`echo $(curl evil.example)`:    Forbidden,
		`make $TARGET`:                 None, // allow rules do not reach inside a dynamic script
		`if true; then make; fi > log`: None,
	} {
		ev := s.Evaluate([]string{"bash", "-lc", script})
		if ev.Decision != want || ev.Plain || ev.AllAllowed() {
			t.Errorf("%q: %s plain=%v allAllowed=%v; want %s, not plain, not all allowed", script, ev.Decision, ev.Plain, ev.AllAllowed(), want)
		}
	}
}

func TestAForbiddenRuleOnTheShellItselfStillApplies(t *testing.T) {
	s := mustLoad(t, `prefix_rule(pattern=["bash"], decision="forbidden")`+"\n"+`prefix_rule(pattern=["ls"])`)
	if d := s.Evaluate([]string{"bash", "-lc", "ls"}).Decision; d != Forbidden {
		t.Fatalf("decision = %s; want forbidden from the wrapper rule", d)
	}
}

func TestAbsoluteProgramPathsResolveToBasenameRules(t *testing.T) {
	s := mustLoad(t, `
prefix_rule(pattern=["git", "status"])
prefix_rule(pattern=["curl"], decision="forbidden")
prefix_rule(pattern=["/usr/local/bin/tool"], decision="prompt")
host_executable(name="git", paths=["/usr/bin/git"])
`)
	tests := []struct {
		argv []string
		want Decision
	}{
		{[]string{"/usr/bin/git", "status"}, Allow},
		{[]string{"/tmp/evil/git", "status"}, None}, // host_executable does not list it
		{[]string{"./git", "status"}, None},         // relative paths never resolve allow rules
		{[]string{"/opt/bin/curl", "x"}, Forbidden}, // forbidden always applies by basename
		{[]string{"./curl"}, Forbidden},             // even for a relative path
		{[]string{"/usr/local/bin/tool"}, Prompt},   // exact match on a path
		{[]string{"tool"}, None},                    // a path rule does not match the bare name
		{[]string{"bash", "-lc", "/bin/curl x"}, Forbidden},
	}
	for _, tt := range tests {
		if got := s.Evaluate(tt.argv).Decision; got != tt.want {
			t.Errorf("Evaluate(%q) = %s; want %s", tt.argv, got, tt.want)
		}
	}
}

func TestANilSetMatchesNothing(t *testing.T) {
	var s *Set
	ev := s.Evaluate([]string{"bash", "-lc", "ls && pwd"})
	if ev.Decision != None || len(ev.Segments) != 2 || ev.AllAllowed() || s.Len() != 0 {
		t.Fatalf("nil set evaluation = %+v", ev)
	}
}

func TestWithRuleAddsWithoutChangingTheOriginal(t *testing.T) {
	s := mustLoad(t, precedenceRules)
	n := s.WithRule(Rule{File: "/h/rules/default.rules", Line: 1, Pattern: [][]string{{"cargo"}, {"fmt"}}, Decision: Allow})
	if s.Evaluate([]string{"cargo", "fmt"}).Decision != None {
		t.Fatal("WithRule changed the receiver")
	}
	if n.Evaluate([]string{"cargo", "fmt"}).Decision != Allow || n.Evaluate([]string{"git", "push"}).Decision != Prompt {
		t.Fatal("the new set lacks the amendment or the old rules")
	}
	n3 := s.WithAllowRule([]string{"cargo", "fmt"})
	if m, _ := n3.Evaluate([]string{"cargo", "fmt", "--all"}).Strictest(); m.Decision != Allow || m.File != AmendmentFile {
		t.Fatalf("WithAllowRule match = %+v", m)
	}
	if s.WithAllowRule(nil) != s {
		t.Fatal("an empty amendment must not change the set")
	}
	n2 := n.WithRule(Rule{File: "x", Line: 2, Pattern: [][]string{{"git"}, {"push"}}, Decision: Allow})
	if n.Len() != s.Len()+1 || n2.Len() != s.Len()+2 || n.Evaluate([]string{"git", "push"}).Decision != Prompt {
		t.Fatal("sets share mutable state")
	}
}
