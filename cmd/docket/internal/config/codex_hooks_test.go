package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codexHooksConfig is a Codex 0.171 config.toml with hooks of several
// events and handler types, its [hooks.state] trust record, and one
// Docket hook beside them.
const codexHooksConfig = `model = 'from-codex'
[[hooks.PreToolUse]]
matcher = "Bash"
hooks = [{type = "command", command = "echo hi", timeout = 30}]

[[hooks.PreToolUse]]
matcher = "apply_patch|Edit"
hooks = [{type = "command", command = "./guard.sh"}, {type = "prompt", prompt = "is it safe?"}]

[[hooks.PreCompact]]
hooks = [{type = "command", command = "notify-send compacting"}]

[hooks]
SessionStart = [{hooks = [{type = "command", command = "date"}]}]

[hooks.state."FILE:pre_tool_use:0:0"]
trusted_hash = "sha256:0000"

[[hooks.pre_tool]]
tool = "shell"
command = ["/usr/local/bin/docket-guard"]
`

// TestACodexConfigWithHooksLoads: a Codex home whose config.toml has
// Codex hook tables and [hooks.state] loads; Docket's own hook beside them
// runs; every Codex handler is kept with its file, line and event, none
// is run, and each is named in a start warning; [hooks.state] is ignored.
func TestACodexConfigWithHooksLoads(t *testing.T) {
	home := t.TempDir()
	codex := filepath.Join(home, "codex")
	if err := os.MkdirAll(codex, 0o755); err != nil {
		t.Fatal(err)
	}
	writeIn(t, codex, FileName, codexHooksConfig)
	file := filepath.Join(codex, FileName)
	c := mustLoad(t, LoadOptions{Env: envOf(map[string]string{"HOME": home, "CODEX_HOME": codex})})
	if c.Model != "from-codex" {
		t.Errorf("model %q: the Codex config was not read", c.Model)
	}
	if got := commands(c); len(got) != 1 || got[0] != "/usr/local/bin/docket-guard" {
		t.Errorf("Docket hooks that run: %q, want the [[hooks.pre_tool]] alone", got)
	}
	want := []struct {
		event          string
		line           int
		group, handler int
		typ, command   string
		why            string
	}{
		{"PreToolUse", 2, 1, 1, "command", "echo hi", "would not see the command"},
		{"PreToolUse", 6, 2, 1, "command", "./guard.sh", "write it as [[hooks.pre_tool]]"},
		{"PreToolUse", 6, 2, 2, "prompt", "", `this handler's type is "prompt"`},
		{"PreCompact", 10, 1, 1, "command", "notify-send compacting", "Docket has no PreCompact event"},
		{"SessionStart", 14, 1, 1, "command", "date", "Docket has no SessionStart event"},
	}
	if len(c.CodexHooks) != len(want) {
		t.Fatalf("Codex hooks: %+v, want %d", c.CodexHooks, len(want))
	}
	for i, w := range want {
		h := c.CodexHooks[i]
		if h.File != file || h.Event != w.event || h.Line != w.line || h.Group != w.group || h.Handler != w.handler ||
			h.Type != w.typ || h.Command != w.command || !strings.Contains(h.Why, w.why) {
			t.Errorf("Codex hook %d: %+v, want %+v", i+1, h, w)
		}
		warning := fmt.Sprintf("Codex hook %s in %s:%d is not run by Docket: ", w.event, file, w.line)
		found := false
		for _, s := range c.Warnings {
			found = found || strings.HasPrefix(s, warning) && strings.Contains(s, w.why)
		}
		if !found {
			t.Errorf("no warning %q...%q in %q", warning, w.why, c.Warnings)
		}
	}
	for _, s := range append(c.Warnings, c.Notes...) {
		if strings.Contains(s, "state") || strings.Contains(s, "trusted_hash") {
			t.Errorf("[hooks.state] was said: %q", s)
		}
	}
}

// TestCodexHookTablesAreNoErrorWhereDocketReadsThem: Docket's own config,
// a profile file and a trusted project's .codex/config.toml all accept
// Codex hook tables; an unknown key beside them, or an event Codex does
// not have, is still an error naming its line.
func TestCodexHookTablesAreNoErrorWhereDocketReadsThem(t *testing.T) {
	hook := "[[hooks.PostToolUse]]\nmatcher = 'Bash'\nhooks = [{type = 'command', command = 'log.sh'}]\n" +
		"[hooks.state.'x:post_tool_use:0:0']\ntrusted_hash = 'sha256:1'\n"
	for _, tc := range []struct {
		name, text, errKey string
		errLine            int
	}{
		{"hooks alone", hook, "", 0},
		{"beside a misspelt key", "modle = 'x'\n" + hook, "modle", 1},
		{"an event Codex does not have", "[[hooks.PreToolUses]]\nhooks = []\n", "hooks.PreToolUses", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := homeWith(t, tc.text)
			_, err := Load(LoadOptions{Home: home})
			switch {
			case tc.errKey == "" && err != nil:
				t.Fatalf("load: %v", err)
			case tc.errKey != "":
				if err == nil || !strings.Contains(err.Error(), tc.errKey) || !strings.Contains(err.Error(), fmt.Sprintf(":%d", tc.errLine)) {
					t.Fatalf("load: %v, want an error naming %s at line %d", err, tc.errKey, tc.errLine)
				}
			}
		})
	}
	t.Run("profile file", func(t *testing.T) {
		home := homeWith(t, "model = 'base'\n")
		writeIn(t, home, "deep.config.toml", "model = 'deep'\n"+hook)
		c := mustLoad(t, LoadOptions{Home: home, Profile: "deep"})
		if c.Model != "deep" || len(c.CodexHooks) != 1 || c.CodexHooks[0].File != filepath.Join(home, "deep.config.toml") || c.CodexHooks[0].Line != 2 {
			t.Errorf("model %q Codex hooks %+v", c.Model, c.CodexHooks)
		}
	})
}

// TestAProjectsCodexHooksAreListedNeverRun: a trusted project's
// .codex/config.toml with Codex hooks loads; its hooks are listed with
// its file and line and none runs, trusted or not (Docket has no Codex
// hook runner, so there is nothing to trust); an untrusted project's
// file is not read at all.
func TestAProjectsCodexHooksAreListedNeverRun(t *testing.T) {
	text := "[[hooks.PreToolUse]]\nmatcher = '*'\nhooks = [{type = 'command', command = 'sh .codex/gate.sh'}]\n"
	home, ws, file := trustedProject(t, CodexProjectDir, text)
	c := mustLoad(t, LoadOptions{Home: home, Cwd: ws})
	if len(c.CodexHooks) != 1 || c.CodexHooks[0].File != file || c.CodexHooks[0].Line != 1 || c.CodexHooks[0].Event != "PreToolUse" {
		t.Fatalf("Codex hooks %+v", c.CodexHooks)
	}
	if len(c.Hooks.PreTool)+len(c.Hooks.PostTool) != 0 || len(c.HookReviews) != 0 {
		t.Errorf("a Codex hook became a Docket hook: %+v %+v", c.Hooks, c.HookReviews)
	}
	untrusted := mustLoad(t, LoadOptions{Home: t.TempDir(), Cwd: ws})
	if len(untrusted.CodexHooks) != 0 {
		t.Errorf("an untrusted project's Codex hooks were read: %+v", untrusted.CodexHooks)
	}
}
