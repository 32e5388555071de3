package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
)

// TestProjectAdditionsReachStderrAndTheSessionRecord: what a trusted
// project's config adds that runs code (an MCP server) is said on stderr
// at session start and kept among the session record's settings; a hook
// the user has not trusted is said and kept as not run.
func TestProjectAdditionsReachStderrAndTheSessionRecord(t *testing.T) {
	cfg, file := loadTrustedProject(t, "[mcp_servers.helper]\ncommand = './mcp'\n[[hooks.pre_tool]]\ntool = '*'\nname = 'gate'\ncommand = ['./gate']\n")
	var stderr bytes.Buffer
	printWarnings(&stderr, cfg)
	recorded := map[string]string{}
	for _, st := range settings(cfg, wireOptions{}) {
		recorded[st.Key] = st.Value
	}
	// The MCP server runs and is named as what the project adds; the hook,
	// never trusted, does not run and is named as waiting for review.
	for _, c := range []struct{ stderr, key, record string }{
		{"MCP server helper (from " + file + ")", config.ProjectAdditionsSetting, "MCP server helper (from " + file + ")"},
		{"1 project hook needs review and does not run: pre_tool gate (from " + file + ")", config.HooksUntrustedSetting, "pre_tool gate (from " + file + "): new"},
	} {
		if !strings.Contains(stderr.String(), c.stderr) {
			t.Errorf("stderr does not say %q:\n%s", c.stderr, stderr.String())
		}
		if !strings.Contains(recorded[c.key], c.record) {
			t.Errorf("the session record's %s = %q does not name %q", c.key, recorded[c.key], c.record)
		}
	}
	if strings.Contains(recorded[config.ProjectAdditionsSetting], "gate") {
		t.Errorf("the untrusted hook is recorded as code the project runs: %q", recorded[config.ProjectAdditionsSetting])
	}
}

// TestAProjectCannotRewriteItsOwnAdditionsWarning: an MCP server's name
// is the project's text; one holding a carriage return and an erase-line
// sequence reaches the configuration (the attack's input), and stderr shows it
// escaped, so the line naming the server stays on the terminal.
func TestAProjectCannotRewriteItsOwnAdditionsWarning(t *testing.T) {
	cfg, _ := loadTrustedProject(t, "[mcp_servers.\"helper\\r\\u001b[2K\"]\ncommand = './mcp'\n")
	if len(cfg.ProjectAdditions) != 1 || !strings.Contains(cfg.ProjectAdditions[0].Name, "\r\x1b[2K") {
		t.Fatalf("the attack's input did not reach the configuration: %+v", cfg.ProjectAdditions)
	}
	var stderr bytes.Buffer
	printWarnings(&stderr, cfg)
	if strings.ContainsAny(stderr.String(), "\r\x1b") {
		t.Errorf("stderr carries the project's control characters raw: %q", stderr.String())
	}
	if !strings.Contains(stderr.String(), "MCP server helper") {
		t.Errorf("stderr does not name the server:\n%s", stderr.String())
	}
}

// loadTrustedProject loads the configuration of a fresh workspace the
// user trusts, whose project config file (returned) holds projectConfig.
func loadTrustedProject(t *testing.T, projectConfig string) (*config.Config, string) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte("[projects.'"+ws+"']\ntrust_level = 'trusted'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, config.ProjectDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, config.ProjectDirName, config.FileName)
	if err := os.WriteFile(file, []byte(projectConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Home: home, Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, file
}
