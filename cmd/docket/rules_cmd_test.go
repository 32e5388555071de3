package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const cliExampleRules = `# reviewed operations
prefix_rule(pattern=["git", "status"])

prefix_rule(pattern=["git", "push"], decision="prompt", justification="pushes are reviewed")
`

func runRules(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func writeRules(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRulesCheckJSONHasTheShapeOfCLIMD(t *testing.T) {
	t.Parallel()
	file := writeRules(t, t.TempDir(), "default.rules", cliExampleRules)
	code, out, errOut := runRules(t, "rules", "check", "--rules", file, "--json", "--", "git", "push")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `{"command":["git","push"],"decision":"prompt","known_safe":false,"dangerous":false,` +
		`"matched_rules":[{"file":"FILE","line":4,"pattern":["git","push"],"decision":"prompt","justification":"pushes are reviewed"}],` +
		`"requirements":{"untrusted":"needs_approval","on-failure":"needs_approval","on-request":"needs_approval","never":"forbidden"}}` + "\n"
	if got := strings.ReplaceAll(out, file, "FILE"); got != want {
		t.Fatalf("output\n%s\nwant\n%s", got, want)
	}
}

func TestRulesCheckReportsSafetyAndEveryPolicyWithoutRules(t *testing.T) {
	t.Setenv("DOCKET_HOME", t.TempDir())
	tests := []struct {
		name string
		args []string
		want map[string]any
	}{
		{"known-safe script", []string{"bash", "-lc", "ls && git status"}, map[string]any{
			"decision": "none", "known_safe": true, "dangerous": false,
			"requirements": map[string]any{"untrusted": "skip", "on-failure": "skip", "on-request": "skip", "never": "skip"}}},
		{"dangerous command", []string{"rm", "-rf", "build"}, map[string]any{
			"decision": "none", "known_safe": false, "dangerous": true,
			"requirements": map[string]any{"untrusted": "needs_approval", "on-failure": "needs_approval", "on-request": "needs_approval", "never": "forbidden"}}},
		{"ordinary command", []string{"cargo", "build"}, map[string]any{
			"decision": "none", "known_safe": false, "dangerous": false,
			"requirements": map[string]any{"untrusted": "needs_approval", "on-failure": "skip", "on-request": "skip", "never": "skip"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runRules(t, append([]string{"rules", "check", "--json", "--"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			for k, v := range tt.want {
				if g, _ := json.Marshal(got[k]); string(g) != mustJSON(t, v) {
					t.Errorf("%s = %s; want %s", k, g, mustJSON(t, v))
				}
			}
			if m, ok := got["matched_rules"].([]any); !ok || len(m) != 0 {
				t.Errorf("matched_rules = %v; want []", got["matched_rules"])
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRulesCheckDiscoversHomeRulesAndHonoursTheSandboxMode(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeRules(t, home, "rules/default.rules", cliExampleRules)
	code, out, errOut := runRules(t, "rules", "check", "--home", home, "-s", "danger-full-access", "--json", "git", "status", "--short")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got rulesCheckResult
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Decision != "allow" || len(got.MatchedRules) != 1 || got.MatchedRules[0].Line != 2 ||
		got.MatchedRules[0].File != filepath.Join(home, "rules", "default.rules") {
		t.Fatalf("result = %+v", got)
	}
	// Flags after the command's first word belong to the command.
	if strings.Join(got.Command, " ") != "git status --short" {
		t.Fatalf("command = %q", got.Command)
	}
}

func TestRulesCheckHumanOutput(t *testing.T) {
	t.Parallel()
	file := writeRules(t, t.TempDir(), "default.rules", cliExampleRules)
	code, out, _ := runRules(t, "rules", "check", "--rules", file, "--", "git", "push", "it's")
	if code != 0 {
		t.Fatal(out)
	}
	for _, want := range []string{
		"command:     git push 'it'\\''s'\n",
		"decision:    prompt\n",
		"matched:     " + file + ":4 git push prompt (pushes are reviewed)\n",
		"known-safe:  no\n",
		"requirement under each approval policy (sandbox workspace-write):\n",
		"  never       forbidden      approval required by rule " + file + ":4: pushes are reviewed; the approval policy is never\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRulesCheckUsageAndConfigurationErrorsExitTwo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := writeRules(t, dir, "bad.rules", "prefix_rule(pattern=[\"ls\"])\nprefix_rule(pattern=[\"rm\"], decison=\"allow\")\n")
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"no command", []string{"rules", "check", "--json"}, "no command given"},
		{"bad sandbox mode", []string{"rules", "check", "-s", "workspace_write", "--", "ls"}, `did you mean "workspace-write"`},
		{"bad rules file", []string{"rules", "check", "--rules", bad, "--", "ls"}, bad + ":2:"},
		{"missing rules file", []string{"rules", "check", "--rules", filepath.Join(dir, "nope.rules"), "--", "ls"}, "cannot read rules file"},
		{"unknown flag", []string{"rules", "check", "--bogus", "--", "ls"}, "unknown flag"},
		{"no subcommand", []string{"rules"}, "subcommand is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runRules(t, tt.args...)
			if code != exitUsage {
				t.Fatalf("exit %d; want %d (stdout %q, stderr %q)", code, exitUsage, out, errOut)
			}
			if !strings.Contains(errOut, tt.msg) {
				t.Fatalf("stderr %q does not say %q", errOut, tt.msg)
			}
		})
	}
}
