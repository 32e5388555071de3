package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// The repository's MCP fixtures (testdata/mcp at the top level) are used by
// end-to-end tests elsewhere; check that the config starts and that every
// MCP tool the model script calls is registered.
func TestRepositoryFixtures(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "mcp")
	data, err := os.ReadFile(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		MCPServers map[string]ServerConfig `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("config.toml: %v", err)
	}
	npmServer(t, "mcp-server-everything") // fail with the install hint if missing
	env := append(os.Environ(), "DOCKET_MCP_DIR="+npmServersDir(t))
	m := mustStart(t, cfg.MCPServers, Options{Environ: env, Dir: t.TempDir()})

	f, err := os.Open(filepath.Join(dir, "echo-and-sum.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	calls := 0
	for line := 1; sc.Scan(); line++ {
		var resp struct {
			Output []struct {
				Type      string          `json:"type"`
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"output"`
		}
		if err := json.Unmarshal(sc.Bytes(), &resp); err != nil {
			t.Fatalf("echo-and-sum.jsonl:%d: %v", line, err)
		}
		for _, item := range resp.Output {
			if item.Type != "function_call" {
				continue
			}
			tool, ok := m.Lookup(item.Name)
			if !ok {
				t.Fatalf("echo-and-sum.jsonl:%d: tool %s is not registered", line, item.Name)
			}
			args := item.Arguments
			var s string
			if json.Unmarshal(args, &s) == nil {
				args = json.RawMessage(s)
			}
			if res, err := m.Call(context.Background(), tool.Server, tool.Name, args); err != nil || res.IsError {
				t.Errorf("echo-and-sum.jsonl:%d: %s = %+v, %v", line, item.Name, res, err)
			}
			calls++
		}
	}
	if calls != 2 {
		t.Errorf("model script made %d MCP calls, want 2", calls)
	}
}
