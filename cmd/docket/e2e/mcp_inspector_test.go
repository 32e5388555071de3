package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// inspectorBin is the MCP Inspector's launcher from npm
// (scripts/install-mcp-servers.sh).
func inspectorBin(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MCP_SERVERS_DIR")
	if dir == "" {
		dir, _ = filepath.Abs("../../../.cache/mcp")
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is not installed: run scripts/install-mcp-servers.sh", bin)
	}
	return bin
}

// inspect runs the Inspector's CLI against target with args and decodes
// its JSON answer (the first JSON value it prints).
func inspect(t *testing.T, e mcpServerEnv, target []string, args ...string) map[string]any {
	t.Helper()
	cmd := exec.Command(inspectorBin(t), append(append([]string{"--cli"}, target...), args...)...)
	// The CLI keeps a catalogue of servers in the home directory: keep it
	// in the test's.
	cmd.Env = append(os.Environ(), "MCP_CATALOG_PATH="+filepath.Join(e.home, "inspector.json"))
	out, err := cmd.Output()
	var got map[string]any
	if derr := json.NewDecoder(strings.NewReader(string(out))).Decode(&got); derr != nil {
		t.Fatalf("inspector %q: %v (decode: %v)\n%s", args, err, derr, out)
	}
	return got
}

func resultText(res map[string]any) string {
	var b strings.Builder
	cs, _ := res["content"].([]any)
	for _, c := range cs {
		if m, ok := c.(map[string]any); ok {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// TestMCPInspectorCLI: the MCP Inspector's CLI, over stdio and over
// streamable HTTP with the bearer token, lists Docket's tools and runs a
// sandboxed command; a call the sandbox blocks parks (the Inspector's CLI
// cannot be asked), docket resume approves it, and the audit shows why it
// ran unsandboxed.
func TestMCPInspectorCLI(t *testing.T) {
	e := newMCPServerEnv(t)
	stdio := append([]string{docketBin}, e.args()...)

	list := inspect(t, e, stdio, "--method", "tools/list")
	var names []string
	tools, _ := list["tools"].([]any)
	for _, tl := range tools {
		m, _ := tl.(map[string]any)
		n, _ := m["name"].(string)
		names = append(names, n)
	}
	if got := strings.Join(names, ","); got != "apply_patch,audit,exec_command,shell,write_stdin" {
		t.Fatalf("tools/list through the Inspector: %s", got)
	}

	res := inspect(t, e, stdio, "--method", "tools/call", "--tool-name", "shell", "--tool-arg", `command=["bash","-c","echo from-inspector > in.txt; cat in.txt"]`)
	if res["isError"] == true || !strings.Contains(resultText(res), "from-inspector") {
		t.Fatalf("sandboxed command through the Inspector: %v", res)
	}

	res = inspect(t, e, stdio, "--method", "tools/call", "--tool-name", "shell", "--tool-arg", `command=["bash","-c","echo escaped > `+filepath.Join(e.outside, "inspector.txt")+`"]`)
	sc, _ := res["structuredContent"].(map[string]any)
	id, _ := sc["session_id"].(string)
	if sc["status"] != "parked" || id == "" || !strings.Contains(resultText(res), "docket resume "+id) {
		t.Fatalf("a denied call from a client without elicitation should park: %v", res)
	}
	if r := docket(t, nil, "resume", "--home", e.home, id, "--decisions", "mcp_1=approved"); r.code != 0 {
		t.Fatalf("docket resume: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(e.outside, "inspector.txt")); err != nil || string(b) != "escaped\n" {
		t.Fatalf("the approved call did not run: %q %v", b, err)
	}
	auditSays(t, e, id, "call mcp_1", "UNSANDBOXED because sandbox denied it", "approved")

	url, token := startHTTPServer(t, e)
	res = inspect(t, e, []string{url}, "--transport", "http", "--header", "Authorization: Bearer "+token,
		"--method", "tools/call", "--tool-name", "shell", "--tool-arg", `command=["echo","over-http"]`)
	if res["isError"] == true || !strings.Contains(resultText(res), "over-http") {
		t.Fatalf("sandboxed command through the Inspector over HTTP: %v", res)
	}
}
