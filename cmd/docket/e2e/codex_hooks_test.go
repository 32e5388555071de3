package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestACodexHomeWithHooksStartsDocket: a Codex user's ~/.codex/config.toml
// with Codex hooks and their [hooks.state] trust record, read for want of
// a Docket config, starts `docket exec` and `docket hooks`: the turn runs,
// each Codex hook is named at start with its file, line and event, none of
// them runs (its side effect, a file, is never written), and `docket
// hooks` lists each with why.
func TestACodexHomeWithHooksStartsDocket(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), gitWorkspace(t)
	codexHome := filepath.Join(home, ".codex")
	ran := filepath.Join(t.TempDir(), "codex-hook-ran")
	cfgFile := filepath.Join(codexHome, "config.toml")
	writeFile(t, cfgFile, `[[hooks.PreToolUse]]
matcher = "Bash"
hooks = [{type = "command", command = "touch `+ran+`", timeout = 30}]

[[hooks.PreCompact]]
hooks = [{type = "command", command = "touch `+ran+`"}]

[hooks.state."`+cfgFile+`:pre_tool_use:0:0"]
trusted_hash = "sha256:0123"
`)
	env := []string{"HOME=" + home, "DOCKET_HOME=", "CODEX_HOME="}
	script := writeScript(t, `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["echo","ok"]}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`)
	r := docket(t, env, "exec", "-C", ws, "-s", "workspace-write", "--model-script", script, "go")
	if r.code != 0 {
		t.Fatalf("exec with a Codex home holding hooks: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"Codex hook PreToolUse in " + cfgFile + ":1 is not run by Docket",
		"Codex hook PreCompact in " + cfgFile + ":5 is not run by Docket",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "trusted_hash") || strings.Contains(r.stderr, "hooks.state") {
		t.Errorf("[hooks.state] was said:\n%s", r.stderr)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("a Codex hook ran under Docket")
	}

	h := docket(t, env, "hooks", "-C", ws, "--json")
	if h.code != 0 {
		t.Fatalf("docket hooks: exit %d\n%s%s", h.code, h.stdout, h.stderr)
	}
	var list []struct {
		Stage, Status, File, Why string
		Line                     int
		Runs                     bool
	}
	if err := json.Unmarshal([]byte(h.stdout), &list); err != nil {
		t.Fatalf("docket hooks --json: %v\n%s", err, h.stdout)
	}
	if len(list) != 2 || list[0].Stage != "PreToolUse" || list[0].Line != 1 || list[1].Stage != "PreCompact" || list[1].Line != 5 {
		t.Fatalf("docket hooks --json = %+v", list)
	}
	for _, e := range list {
		if e.Runs || e.Status != "codex, not run" || e.File != cfgFile || e.Why == "" {
			t.Errorf("listed as %+v", e)
		}
	}
	if h := docket(t, env, "hooks", "-C", ws); h.code != 0 || !strings.Contains(h.stdout, "Codex PreCompact (group 1, handler 1)\n  does not run: Docket has no PreCompact event") {
		t.Errorf("docket hooks (exit %d):\n%s%s", h.code, h.stdout, h.stderr)
	}
}
