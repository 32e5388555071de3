package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// TestACodexHomeWithHooksStartsDocket: a Codex user's ~/.codex/config.toml
// with Codex hooks and their [hooks.state] trust record, read for want of
// a Docket config, starts `docket exec` and `docket hooks`. The Bash
// PreToolUse guard, a real process, waits for the user's review as in
// Codex; trusted, it is told each shell call as Codex tells it and its
// exit 2 stops the forbidden one; the PreCompact hook is
// named at start with its file and line and never runs (its side effect,
// a file, is never written); `docket hooks` lists both.
func TestACodexHomeWithHooksStartsDocket(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), gitWorkspace(t)
	codexHome := filepath.Join(home, ".codex")
	outside := t.TempDir()
	seen, ran := filepath.Join(outside, "guard-saw"), filepath.Join(outside, "compact-ran")
	guard := filepath.Join(outside, "guard.sh")
	writeFile(t, guard, `input=$(cat)
printf '%s\n' "$input" >> `+seen+`
case "$input" in *'"command":"echo forbidden"'*) echo "no forbidden words" >&2; exit 2;; esac
exit 0
`)
	cfgFile := filepath.Join(codexHome, "config.toml")
	writeFile(t, cfgFile, `[[hooks.PreToolUse]]
matcher = "Bash"
hooks = [{type = "command", command = "sh `+guard+`", timeout = 30}]

[[hooks.PreCompact]]
hooks = [{type = "command", command = "touch `+ran+`"}]

[hooks.state."`+cfgFile+`:pre_tool_use:0:0"]
trusted_hash = "sha256:0123"
`)
	env := []string{"HOME=" + home, "DOCKET_HOME=", "CODEX_HOME="}
	script := writeScript(t, `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["echo","ok"]}}]}`,
		`{"output":[{"type":"function_call","call_id":"c2","name":"shell","arguments":{"command":["echo","forbidden"]}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`)
	exec := func() result {
		t.Helper()
		r := docket(t, env, "exec", "-C", ws, "-s", "workspace-write", "--json", "--model-script", script, "go")
		if r.code != 0 {
			t.Fatalf("exec with a Codex home holding hooks: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		return r
	}
	// As Codex runs a hook only once the user reviewed it, so does Docket.
	r := exec()
	if _, err := os.Stat(seen); err == nil {
		t.Fatalf("the Codex guard ran before review")
	}
	if !strings.Contains(r.stderr, "2 hooks need review and do not run: pre_tool codex-PreToolUse-1.1-shell (from "+cfgFile+")") {
		t.Errorf("stderr does not say the Codex hook waits for review:\n%s", r.stderr)
	}
	if tr := docket(t, env, "hooks", "trust", "--all", "-C", ws); tr.code != 0 || !strings.Contains(tr.stdout, "protocol     codex") {
		t.Fatalf("docket hooks trust --all: exit %d\n%s%s", tr.code, tr.stdout, tr.stderr)
	}
	r = exec()
	if want := "Codex hook PreCompact in " + cfgFile + ":5 is not run by Docket"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	if strings.Contains(r.stderr, "trusted_hash") || strings.Contains(r.stderr, "hooks.state") {
		t.Errorf("[hooks.state] was said:\n%s", r.stderr)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("the PreCompact hook ran under Docket")
	}
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("the Bash guard never ran: %v\n%s", err, r.stderr)
	}
	told := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(told) != 2 {
		t.Fatalf("the guard was told %d calls, want 2:\n%s", len(told), b)
	}
	for i, cmd := range []string{"echo ok", "echo forbidden"} {
		var in struct {
			Event     string `json:"hook_event_name"`
			Tool      string `json:"tool_name"`
			ToolInput struct {
				Command string `json:"command"`
			} `json:"tool_input"`
			Cwd string `json:"cwd"`
		}
		if err := json.Unmarshal([]byte(told[i]), &in); err != nil || in.Event != "PreToolUse" || in.Tool != "Bash" || in.ToolInput.Command != cmd || in.Cwd != ws {
			t.Errorf("the guard was told %s (%v), want Codex's input for %q", told[i], err, cmd)
		}
	}
	sf, err := journal.Find(filepath.Join(home, ".docket"), "last")
	if err != nil {
		t.Fatal(err)
	}
	var told2 string
	for _, rec := range readJournal(t, sf.Path) {
		if rec.CallID != "c2" {
			continue
		}
		if b, err := rec.Decode(); err == nil {
			if o, ok := b.(*events.ToolOutput); ok {
				told2 = o.Output
			}
		}
	}
	if !strings.Contains(told2, "denied by pre_tool hook codex-PreToolUse-1.1-shell: no forbidden words") {
		t.Errorf("the model was told %q of the forbidden call, want the guard's denial", told2)
	}
	if strings.Contains(r.stdout, `"command":"echo forbidden"`) {
		t.Errorf("the forbidden call ran:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, `"aggregated_output":"ok\n"`) {
		t.Errorf("the allowed call did not run:\n%s", r.stdout)
	}

	h := docket(t, env, "hooks", "-C", ws, "--json")
	if h.code != 0 {
		t.Fatalf("docket hooks: exit %d\n%s%s", h.code, h.stdout, h.stderr)
	}
	var list []struct {
		Stage, Name, Status, File, Why string
		Line                           int
		Runs                           bool
	}
	if err := json.Unmarshal([]byte(h.stdout), &list); err != nil {
		t.Fatalf("docket hooks --json: %v\n%s", err, h.stdout)
	}
	var got []string
	for _, e := range list {
		got = append(got, fmt.Sprintf("%s %s %s %v", e.Stage, e.Name, e.Status, e.Runs))
	}
	want := []string{"pre_tool codex-PreToolUse-1.1-shell trusted true", "pre_tool codex-PreToolUse-1.1-exec_command trusted true",
		"PreToolUse PreToolUse #1.1 codex, runs as Docket hooks true", "PreCompact PreCompact #1.1 codex, not run false"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("docket hooks --json lists\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if h := docket(t, env, "hooks", "-C", ws); h.code != 0 || !strings.Contains(h.stdout, "Codex PreCompact (group 1, handler 1)\n  does not run: Docket has no PreCompact event") {
		t.Errorf("docket hooks (exit %d):\n%s%s", h.code, h.stdout, h.stderr)
	}
}
