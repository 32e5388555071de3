package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/states/rules"
)

// TestRulesCheckCountsProjectRulesOnlyWhenTrusted: rules check answers as
// exec would, so an untrusted project's .docket/rules do not match.
func TestRulesCheckCountsProjectRulesOnlyWhenTrusted(t *testing.T) {
	project := t.TempDir()
	writeRules(t, project, ".docket/rules/p.rules", `prefix_rule(pattern=["make", "deploy"], decision="forbidden")`+"\n")
	t.Chdir(project)
	for _, tc := range []struct {
		name, config string
		decision     rules.Decision
		warn         bool
	}{
		{"not in the trust list", "", rules.None, true},
		{"untrusted", fmt.Sprintf("[projects.%q]\ntrust_level = \"untrusted\"\n", project), rules.None, true},
		{"trusted", fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", project), rules.Forbidden, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			writeRules(t, home, "config.toml", tc.config)
			code, out, errOut := runRules(t, "rules", "check", "--home", home, "--json", "--", "make", "deploy")
			var got rulesCheckResult
			if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 {
				t.Fatalf("exit %d %v\n%s%s", code, err, out, errOut)
			}
			if got.Decision != tc.decision {
				t.Errorf("decision = %q, want %q", got.Decision, tc.decision)
			}
			if warned := strings.Contains(errOut, filepath.Join(project, ".docket", "rules")); warned != tc.warn {
				t.Errorf("warned about the project's rules = %v, want %v:\n%s", warned, tc.warn, errOut)
			}
		})
	}
}
