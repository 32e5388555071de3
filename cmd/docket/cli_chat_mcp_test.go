package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// everythingServer is the installed MCP test server (scripts/install-mcp-servers.sh).
func everythingServer(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MCP_SERVERS_DIR")
	if dir == "" {
		dir, _ = filepath.Abs("../../.cache/mcp")
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is not installed: run scripts/install-mcp-servers.sh", bin)
	}
	return bin
}

// TestChatMCPReportsTheSessionsOwnServers: /mcp in the UI shows the
// servers the session started, as they are: a working one with its
// tools, and one that failed at the session's start with its error, even
// though it would start now. Every server start is logged by a wrapper,
// and /mcp adds none.
func TestChatMCPReportsTheSessionsOwnServers(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	server := everythingServer(t)
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	for _, d := range []string{ws, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	starts := filepath.Join(dir, "starts.log")
	mark := filepath.Join(dir, "flaky.failed-once")
	wrappers := map[string]string{
		"everything": fmt.Sprintf("#!/bin/sh\necho everything >> %q\nexec %q\n", starts, server),
		// Fails its first start only: a fresh start by /mcp would find it working.
		"flaky": fmt.Sprintf("#!/bin/sh\necho flaky >> %q\nif [ ! -e %q ]; then : > %q; echo broken-on-purpose >&2; exit 3; fi\nexec %q\n",
			starts, mark, mark, server),
	}
	var cfg strings.Builder
	for _, name := range []string{"everything", "flaky"} {
		p := filepath.Join(dir, name+".sh")
		if err := os.WriteFile(p, []byte(wrappers[name]), 0o755); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&cfg, "[mcp_servers.%s]\ncommand = %q\nstartup_timeout_sec = 60\nenabled_tools = [\"echo\"]\n\n", name, p)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(script, []byte(`{"output":[{"type":"message","content":"unused"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logged := func() string {
		b, err := os.ReadFile(starts)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	r := startChat(t, bin, "chat", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "never", "--model-script", script)
	r.scr.waitFor(t, 0, "approvals never")
	before := logged()
	if strings.Count(before, "everything\n") != 1 || strings.Count(before, "flaky\n") != 1 {
		t.Fatalf("the session's start logged %q; want each server started once", before)
	}
	at := r.scr.mark()
	r.typeLine("/mcp")
	shown := r.scr.waitFor(t, at, "mcp__everything__echo")[at:]
	r.scr.waitFor(t, at, "broken-on-purpose")
	for _, want := range []string{"SERVER", "everything", "running", "flaky", "failed"} {
		if !strings.Contains(shown, want) {
			t.Errorf("/mcp lacks %q:\n%s", want, shown)
		}
	}
	if strings.Contains(shown, "mcp__flaky__echo") {
		t.Errorf("/mcp shows the failed server's tools, as a fresh start would:\n%s", shown)
	}
	if after := logged(); after != before {
		t.Errorf("/mcp started servers: the log went from %q to %q", before, after)
	}
	r.typeLine("/quit")
	if code, out := r.wait(); code != 0 {
		t.Fatalf("chat exited %d:\n%s", code, out)
	}
}
