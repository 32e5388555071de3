package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayRulesCurrentNamesTheFirstChangedDecision: a session that
// asked before running a command verifies against its recorded rules; once
// the user's rules allow the command, --rules current exits 1 naming the
// call and both decisions.
func TestReplayRulesCurrentNamesTheFirstChangedDecision(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	script := writeScript(t,
		`{"output":[{"type":"function_call","call_id":"k1","name":"shell","arguments":{"command":["touch","k1.txt"]}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`)
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "untrusted", "-s", "workspace-write",
		"--model-script", script, "--decisions", "approved", "go")
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	id := sessionIDs(t, home)[0]
	for _, args := range [][]string{{"replay", id, "--home", home}, {"replay", id, "--home", home, "--rules", "current"}} {
		if r := docket(t, nil, args...); r.code != 0 || !strings.HasPrefix(r.stdout, "replay ok: ") {
			t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "rules", "default.rules"), []byte(`prefix_rule(pattern=["touch"], decision="allow")`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = docket(t, nil, "replay", id, "--home", home, "--rules", "current")
	if r.code != 1 {
		t.Fatalf("a changed decision: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"decide call k1 differently", `journal: "Event": "ask"`, `replay:  "Cause": "rule_allow"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, r.stdout)
		}
	}
	// The recorded rules still decide the same.
	if r := docket(t, nil, "replay", id, "--home", home); r.code != 0 {
		t.Fatalf("replay with the recorded rules: exit %d\n%s", r.code, r.stdout)
	}
	r = docket(t, nil, "replay", id, "--home", home, "--rules", "current", "--json")
	var out struct {
		OK     bool   `json:"ok"`
		CallID string `json:"call_id"`
		Rules  string `json:"rules"`
	}
	if r.code != 1 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.OK || out.CallID != "k1" || out.Rules != "current" {
		t.Fatalf("--json: exit %d %+v\n%s", r.code, out, r.stdout)
	}
	if r := docket(t, nil, "replay", id, "--home", home, "--rules", "today"); r.code != 2 {
		t.Fatalf("--rules today: exit %d", r.code)
	}
}

// TestLiveReplayRunsNothingWithoutYes: --live without --yes says what it
// would run and runs nothing; with --yes it runs in a scratch area that is
// gone afterwards.
func TestLiveReplayRunsNothingWithoutYes(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	script := writeScript(t,
		`{"output":[{"type":"function_call","call_id":"w1","name":"shell","arguments":{"command":["bash","-c","echo ran >> live.log"]}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`)
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "never", "-s", "workspace-write",
		"--model-script", script, "go")
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	if err := os.Remove(filepath.Join(ws, "live.log")); err != nil {
		t.Fatalf("the session did not run its command: %v", err)
	}
	id := sessionIDs(t, home)[0]
	tmp := t.TempDir()
	env := []string{"TMPDIR=" + tmp}
	r = docket(t, env, "replay", id, "--home", home, "--live")
	if r.code != 2 || !strings.Contains(r.stderr, "runs 1 recorded command(s)") || !strings.Contains(r.stderr, "--yes") {
		t.Fatalf("--live without --yes: exit %d\n%s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Fatalf("--live without --yes made %v", entries)
	}
	r = docket(t, env, "replay", id, "--home", home, "--live", "--yes", "--json")
	var rep struct {
		Scratch string `json:"scratch"`
		Calls   int    `json:"calls"`
		Drift   []any  `json:"drift"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil || rep.Calls != 1 || len(rep.Drift) != 0 {
		t.Fatalf("--live --yes: exit %d %+v\n%s%s", r.code, rep, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "live.log")); err == nil {
		t.Fatal("live replay ran the command in the real workspace")
	}
	if _, err := os.Stat(rep.Scratch); !os.IsNotExist(err) || !strings.HasPrefix(rep.Scratch, tmp) {
		t.Fatalf("scratch area %s: %v", rep.Scratch, err)
	}
}
