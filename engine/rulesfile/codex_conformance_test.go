package rulesfile_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/codextest"
	"github.com/docket-engine/docket/engine/rulesfile"
	"github.com/docket-engine/docket/states/cmdsafety"
	"github.com/docket-engine/docket/states/policy"
	"github.com/docket-engine/docket/states/rules"
)

// rulesCase is one entry of rules_vectors.json.
type rulesCase struct {
	ID           string            `json:"id"`
	Source       string            `json:"source"`
	Files        map[string]string `json:"files"`
	ProjectFiles map[string]string `json:"project_files"`
	HomeFiles    map[string]string `json:"home_files"`
	Argv         []string          `json:"argv"`
	Sandbox      string            `json:"sandbox"`
	Expect       struct {
		Load          string            `json:"load"`
		ErrorContains []string          `json:"error_contains"`
		Decision      string            `json:"decision"`
		Matched       *[]codexMatch     `json:"matched"`
		MatchedSet    *[]codexMatch     `json:"matched_set"`
		Requirement   map[string]string `json:"requirement"`
		Bypass        map[string]bool   `json:"bypass"`
	} `json:"expect"`
}

type codexMatch struct {
	Pattern       []string `json:"pattern"`
	Decision      string   `json:"decision"`
	Justification string   `json:"justification"`
}

func (m codexMatch) String() string {
	s := fmt.Sprintf("%q:%s", m.Pattern, m.Decision)
	if m.Justification != "" {
		s += ":" + m.Justification
	}
	return s
}

// TestCodexRulesVectors loads each case's rules files from where Docket
// finds them (DOCKET_HOME/rules, <project>/.docket/rules), as the CLI does,
// and checks the load verdict, the decision, the matched rules, and the
// requirement and sandbox bypass per approval policy against Codex's.
func TestCodexRulesVectors(t *testing.T) {
	var data struct {
		Texts map[string]string `json:"texts"`
		Cases []rulesCase       `json:"cases"`
	}
	codextest.ReadJSON(t, "rules_vectors.json", &data)
	if len(data.Cases) == 0 {
		t.Fatal("rules_vectors.json holds no cases")
	}
	sc := codextest.NewScorer(t, "rules_vectors.json", len(data.Cases))
	for _, c := range data.Cases {
		sc.Check(t, c.ID, checkRulesCase(t, c, data.Texts))
	}
}

func checkRulesCase(t *testing.T, c rulesCase, texts map[string]string) string {
	home, project := t.TempDir(), t.TempDir()
	write := func(dir string, files map[string]string) {
		for name, text := range files {
			if ref, ok := strings.CutPrefix(text, "@"); ok {
				text = texts[ref]
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(filepath.Join(home, "rules"), c.Files)
	write(filepath.Join(project, ".docket", "rules"), c.ProjectFiles)
	write(home, c.HomeFiles)

	set, err := rulesfile.Load(rulesfile.Discover(home, project), rules.LoadOptions{})
	if c.Expect.Load == "error" {
		if err == nil {
			return "the rules loaded; Codex rejects them"
		}
		for _, want := range c.Expect.ErrorContains {
			if !strings.Contains(err.Error(), want) {
				return fmt.Sprintf("load error %q does not say %q", err, want)
			}
		}
		return ""
	}
	if err != nil {
		return fmt.Sprintf("load failed: %v", err)
	}
	var problems []string
	sa := cmdsafety.Analyze(c.Argv)
	ev := set.EvaluateScript(sa)
	if want := c.Expect.Decision; want != "" && string(ev.Decision) != want {
		problems = append(problems, fmt.Sprintf("decision %s, Codex %s", ev.Decision, want))
	}
	got := make([]string, 0, len(ev.Matched))
	for _, m := range ev.Matched {
		got = append(got, codexMatch{Pattern: codexPattern(m.Pattern), Decision: string(m.Decision), Justification: m.Justification}.String())
	}
	if c.Expect.Matched != nil {
		want := matchStrings(*c.Expect.Matched)
		if !slices.Equal(got, want) {
			problems = append(problems, fmt.Sprintf("matched %v, Codex %v", got, want))
		}
	}
	if c.Expect.MatchedSet != nil {
		want := matchStrings(*c.Expect.MatchedSet)
		g := slices.Compact(slices.Sorted(slices.Values(got)))
		sort.Strings(want)
		if !slices.Equal(g, slices.Compact(want)) {
			problems = append(problems, fmt.Sprintf("matched set %v, Codex %v", g, want))
		}
	}
	mode, err := policy.ParseSandboxMode(c.Sandbox)
	if err != nil {
		t.Fatalf("rules_vectors.json %s: %v", c.ID, err)
	}
	for _, pol := range sortedKeys(c.Expect.Requirement, c.Expect.Bypass) {
		ap, err := policy.ParseApprovalPolicy(pol)
		if err != nil {
			t.Fatalf("rules_vectors.json %s: %v", c.ID, err)
		}
		req := policy.ExecRequirement(policy.ExecInput{Argv: c.Argv, Approval: ap, Sandbox: policy.SandboxPolicy{Mode: mode}, Rules: set})
		if want, ok := c.Expect.Requirement[pol]; ok && req.Kind.String() != want {
			problems = append(problems, fmt.Sprintf("under %s/%s: %s (%s), Codex %s", pol, mode, req.Kind, req.Reason, want))
		}
		if want, ok := c.Expect.Bypass[pol]; ok && req.BypassSandbox() != want {
			problems = append(problems, fmt.Sprintf("under %s/%s: bypass sandbox %v, Codex %v", pol, mode, req.BypassSandbox(), want))
		}
	}
	return strings.Join(problems, "; ")
}

// codexPattern reports a matched prefix as Codex does: with the rule's own
// first token, which for a basename match is the basename.
func codexPattern(p []string) []string {
	out := slices.Clone(p)
	if len(out) > 0 {
		out[0] = path.Base(out[0])
	}
	return out
}

func matchStrings(ms []codexMatch) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		m.Pattern = codexPattern(m.Pattern)
		out = append(out, m.String())
	}
	return out
}

func sortedKeys(a map[string]string, b map[string]bool) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, dup := a[k]; !dup {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
