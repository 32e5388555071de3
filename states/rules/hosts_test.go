package rules

import (
	"testing"

	"github.com/docket-engine/docket/events"
)

// TestTheLastHostExecutableDeclarationWins: Codex keeps only the last
// host_executable list for a name, within a file and across files in load
// order (home rules sorted, then project rules sorted); Docket used to merge
// them, so an earlier path kept resolving to the allow rule.
func TestTheLastHostExecutableDeclarationWins(t *testing.T) {
	const allowGit = `prefix_rule(pattern=["git", "status"], decision="allow")`
	tests := []struct {
		name string
		srcs []events.RuleSource
		argv []string
		want Decision
	}{
		{"later file replaces the list", []events.RuleSource{
			{Path: "/h/rules/a.rules", Text: `host_executable(name="git", paths=["/usr/bin/git"])`},
			{Path: "/h/rules/b.rules", Text: `host_executable(name="git", paths=["/opt/homebrew/bin/git"])`},
			{Path: "/h/rules/c.rules", Text: allowGit},
		}, []string{"/usr/bin/git", "status"}, None},
		{"the later list applies", []events.RuleSource{
			{Path: "/h/rules/a.rules", Text: `host_executable(name="git", paths=["/usr/bin/git"])`},
			{Path: "/h/rules/b.rules", Text: `host_executable(name="git", paths=["/opt/homebrew/bin/git"])`},
			{Path: "/h/rules/c.rules", Text: allowGit},
		}, []string{"/opt/homebrew/bin/git", "status"}, Allow},
		{"later call in one file replaces", []events.RuleSource{
			{Path: "/h/rules/a.rules", Text: allowGit + "\n" +
				`host_executable(name="git", paths=["/usr/bin/git"])` + "\n" +
				`host_executable(name="git", paths=["/usr/local/bin/git"])`},
		}, []string{"/usr/bin/git", "status"}, None},
		{"a project file may narrow the user's list", []events.RuleSource{
			{Path: "/h/rules/a.rules", Text: allowGit + "\n" + `host_executable(name="git", paths=["/usr/bin/git", "/usr/local/bin/git"])`},
			{Path: "/p/.docket/rules/p.rules", Project: true, Text: `host_executable(name="git", paths=["/usr/local/bin/git"])`},
		}, []string{"/usr/bin/git", "status"}, None},
		{"a project file cannot widen the user's list", []events.RuleSource{
			{Path: "/h/rules/a.rules", Text: allowGit + "\n" + `host_executable(name="git", paths=["/usr/bin/git"])`},
			{Path: "/p/.docket/rules/p.rules", Project: true, Text: `host_executable(name="git", paths=["/p/tools/git"])`},
		}, []string{"/p/tools/git", "status"}, None},
		{"without a user declaration the project's applies", []events.RuleSource{
			{Path: "/h/rules/a.rules", Text: allowGit},
			{Path: "/p/.docket/rules/p.rules", Project: true, Text: `host_executable(name="git", paths=["/usr/bin/git"])`},
		}, []string{"/usr/local/bin/git", "status"}, None},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := LoadSources(tc.srcs, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Evaluate(tc.argv).Decision; got != tc.want {
				t.Errorf("%q: decision %s, want %s", tc.argv, got, tc.want)
			}
		})
	}
}

// TestAScriptFedByHereDocumentsIsJudgedByItsCommand: Codex evaluates
// `bash -lc "python3 <<'PY' ... PY"` against the rules for python3; Docket
// used to treat it as an opaque script no allow rule could match.
func TestAScriptFedByHereDocumentsIsJudgedByItsCommand(t *testing.T) {
	s := mustLoad(t, `prefix_rule(pattern=["python3"], decision="allow")
prefix_rule(pattern=["node"], decision="forbidden")`)
	tests := []struct {
		script string
		want   Decision
	}{
		{"python3 <<'PY'\nprint('hello')\nPY", Allow},
		{"python3 <<PY\n$(rm -rf ~)\nPY", None}, // an expanding body is no plain feed
		{"python3 <<'PY' > out.txt\nx\nPY", None},
		{"node <<'JS'\nx\nJS", Forbidden},
	}
	for _, tc := range tests {
		ev := s.Evaluate([]string{"bash", "-lc", tc.script})
		if ev.Decision != tc.want || ev.AllAllowed() != (tc.want == Allow) {
			t.Errorf("%q: decision %s (all allowed %v), want %s", tc.script, ev.Decision, ev.AllAllowed(), tc.want)
		}
	}
}
