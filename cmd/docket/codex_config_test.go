package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
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

func TestNotifyRunsOnlyForACompletedTurnAndNeverFailsIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "payload")
	for _, tc := range []struct {
		name    string
		argv    []string
		status  events.TurnStatus
		prompt  string
		ran     bool
		inputs  string
		warning string
	}{
		{"completed", []string{"sh", "-c", `printf '%s' "$1" > "$0"`, out}, events.TurnCompleted, "fix it", true, `["fix it"]`, ""},
		{"completed after a resume", []string{"sh", "-c", `printf '%s' "$1" > "$0"`, out}, events.TurnCompleted, "", true, `[]`, ""},
		{"parked", []string{"sh", "-c", `printf '%s' "$1" > "$0"`, out}, events.TurnParked, "fix it", false, "", ""},
		{"failed", []string{"sh", "-c", `printf '%s' "$1" > "$0"`, out}, events.TurnFailed, "fix it", false, "", ""},
		{"a failing program is a warning", []string{"sh", "-c", "exit 3"}, events.TurnCompleted, "x", false, "", "notify sh: exit status 3"},
		{"a missing program is a warning", []string{filepath.Join(dir, "nope")}, events.TurnCompleted, "x", false, "", "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(out)
			var stderr bytes.Buffer
			cfg := &config.Config{Notify: tc.argv}
			notifyTurn(context.Background(), &stderr, cfg, "sess-1", dir, tc.prompt,
				engine.TurnResult{TurnID: "turn-1", Status: tc.status, Message: "all done"})
			b, err := os.ReadFile(out)
			if ran := err == nil; ran != tc.ran {
				t.Fatalf("ran = %v, want %v (stderr %q)", ran, tc.ran, stderr.String())
			}
			if tc.ran {
				want := `{"type":"agent-turn-complete","thread-id":"sess-1","turn-id":"turn-1","cwd":"` + dir +
					`","input-messages":` + tc.inputs + `,"last-assistant-message":"all done"}`
				if string(b) != want {
					t.Errorf("payload\n%s\nwant\n%s", b, want)
				}
			}
			if !strings.Contains(stderr.String(), tc.warning) || (tc.warning == "" && stderr.Len() > 0) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tc.warning)
			}
		})
	}
}
