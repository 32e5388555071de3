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
// project's config adds that runs code (an MCP server, a hook) is said on
// stderr at session start and kept among the session record's settings.
func TestProjectAdditionsReachStderrAndTheSessionRecord(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte("[projects.'"+ws+"']\ntrust_level = 'trusted'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, config.ProjectDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, config.ProjectDirName, config.FileName)
	if err := os.WriteFile(file, []byte("[mcp_servers.helper]\ncommand = './mcp'\n[[hooks.pre_tool]]\ntool = '*'\nname = 'gate'\ncommand = ['./gate']\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Home: home, Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	printWarnings(&stderr, cfg)
	var recorded string
	for _, st := range settings(cfg, wireOptions{}) {
		if st.Key == config.ProjectAdditionsSetting {
			recorded = st.Value
		}
	}
	for _, w := range []string{"MCP server helper (from " + file + ")", "hook pre_tool gate (from " + file + ")"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr does not name %q:\n%s", w, stderr.String())
		}
		if !strings.Contains(recorded, w) {
			t.Errorf("the session record's %s = %q does not name %q", config.ProjectAdditionsSetting, recorded, w)
		}
	}
}

// TestAProjectCannotRewriteItsOwnAdditionsWarning: an MCP server's name
// is the project's text; one holding a carriage return and an erase-line
// sequence reaches the warning (the attack's input), and stderr shows it
// escaped, so the line naming the server stays on the terminal.
func TestAProjectCannotRewriteItsOwnAdditionsWarning(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte("[projects.'"+ws+"']\ntrust_level = 'trusted'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, config.ProjectDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, config.ProjectDirName, config.FileName)
	if err := os.WriteFile(file, []byte("[mcp_servers.\"helper\\r\\u001b[2K\"]\ncommand = './mcp'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Home: home, Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(cfg.Warnings, "\n"), "\r\x1b[2K") {
		t.Fatalf("the attack's input did not reach the warnings: %q", cfg.Warnings)
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
