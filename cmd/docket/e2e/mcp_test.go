package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mcpBin(t *testing.T) string {
	dir := os.Getenv("MCP_SERVERS_DIR")
	if dir == "" {
		dir, _ = filepath.Abs("../../../.cache/mcp")
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is not installed: run scripts/install-mcp-servers.sh", bin)
	}
	return bin
}

func TestMCPListAndAnMCPCallThroughExec(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	cfg := fmt.Sprintf("[mcp_servers.everything]\ncommand = %q\nstartup_timeout_sec = 60\nenabled_tools = [\"echo\"]\napproval = \"always\"\n", mcpBin(t))
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := docket(t, nil, "mcp", "list", "--home", home, "--json")
	var list struct {
		Servers []struct {
			Name, State string
			Tools       []string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || r.code != 0 {
		t.Fatalf("mcp list: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if len(list.Servers) != 1 || list.Servers[0].State != "running" || strings.Join(list.Servers[0].Tools, ",") != "mcp__everything__echo" {
		t.Fatalf("mcp list: %+v", list)
	}
	script := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(script, []byte(`{"output":[{"type":"function_call","call_id":"m1","name":"mcp__everything__echo","arguments":{"message":"via the cli"}}]}
{"output":[{"type":"message","content":"echoed"}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Without a decision the MCP call parks the session (exit 3).
	r = docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "--model-script", script, "--json", "--json-extensions", "-a", "on-request", "echo it")
	if r.code != 3 || !strings.Contains(r.stdout, `"session.parked"`) {
		t.Fatalf("exec without decisions: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = docket(t, nil, "resume", "--last", "-C", ws, "--home", home, "--model-script", script, "--decisions", "approved", "--json", "--json-extensions")
	if r.code != 0 || !strings.Contains(r.stdout, "via the cli") || !strings.Contains(r.stdout, `"out_of_process"`) {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = docket(t, nil, "audit", "--home", home, "last", "--unsandboxed")
	if r.code != 0 || !strings.Contains(r.stdout, "m1") || !strings.Contains(strings.ToLower(r.stdout), "out of process") {
		t.Fatalf("audit: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestASandboxedMCPServerStartsWithItsLayersShown(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	cfg := fmt.Sprintf("[mcp_servers.boxed]\ncommand = %q\nstartup_timeout_sec = 60\nenabled_tools = [\"echo\"]\nsandbox = true\n", mcpBin(t))
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := docket(t, nil, "mcp", "list", "--home", home, "-C", ws)
	if r.code != 0 || !strings.Contains(r.stdout, "running") || !strings.Contains(r.stdout, "landlock:v") || !strings.Contains(r.stdout, "netns") {
		t.Fatalf("mcp list: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
