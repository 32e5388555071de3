package mcp

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
)

func TestServerConfigDecodesFromTOML(t *testing.T) {
	const doc = `
[mcp_servers.github]
command = "node"
args = ["./mcp-server.js", "--token=${GITHUB_TOKEN}"]
env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }
cwd = "tools"
startup_timeout_sec = 5
tool_timeout_sec = 2.5
enabled_tools = ["search"]
disabled_tools = ["delete_repo"]
supports_parallel_tool_calls = true
approval = "always"
sandbox = false
enabled = false
`
	var cfg struct {
		MCPServers map[string]ServerConfig `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal([]byte(doc), &cfg); err != nil {
		t.Fatalf("decode: %v", err)
	}
	gh, ok := cfg.MCPServers["github"]
	if !ok {
		t.Fatalf("no github server in %+v", cfg.MCPServers)
	}
	f := false
	want := ServerConfig{
		Command: "node", Args: []string{"./mcp-server.js", "--token=${GITHUB_TOKEN}"},
		Env: map[string]string{"GITHUB_TOKEN": "${GITHUB_TOKEN}"}, Cwd: "tools",
		StartupTimeoutSec: 5, ToolTimeoutSec: 2.5,
		EnabledTools: []string{"search"}, DisabledTools: []string{"delete_repo"},
		SupportsParallelToolCalls: true, Approval: "always", Enabled: &f,
	}
	if gh.Command != want.Command || !slices.Equal(gh.Args, want.Args) || gh.Env["GITHUB_TOKEN"] != "${GITHUB_TOKEN}" ||
		gh.Cwd != want.Cwd || gh.StartupTimeoutSec != 5 || gh.ToolTimeoutSec != 2.5 ||
		!slices.Equal(gh.EnabledTools, want.EnabledTools) || !slices.Equal(gh.DisabledTools, want.DisabledTools) ||
		!gh.SupportsParallelToolCalls || gh.Approval != "always" || gh.IsEnabled() {
		t.Errorf("decoded %+v\nwant    %+v", gh, want)
	}
	if gh.StartupTimeout() != 5*time.Second || gh.ToolTimeout() != 2500*time.Millisecond {
		t.Errorf("timeouts = %s, %s", gh.StartupTimeout(), gh.ToolTimeout())
	}
}

func TestServerConfigDefaults(t *testing.T) {
	var c ServerConfig
	if c.StartupTimeout() != 10*time.Second || c.ToolTimeout() != 60*time.Second {
		t.Errorf("default timeouts = %s, %s; want 10s, 60s", c.StartupTimeout(), c.ToolTimeout())
	}
	if c.ApprovalSetting() != ApprovalAuto || !c.IsEnabled() {
		t.Errorf("default approval %q enabled %v; want auto, true", c.ApprovalSetting(), c.IsEnabled())
	}
}

func TestServerConfigValidate(t *testing.T) {
	tests := []struct {
		name, server string
		cfg          ServerConfig
		wantErr      string
	}{
		{name: "minimal is valid", server: "s", cfg: ServerConfig{Command: "x"}},
		{name: "missing command", server: "s", cfg: ServerConfig{}, wantErr: "mcp_servers.s.command: missing"},
		{name: "bad approval", server: "s", cfg: ServerConfig{Command: "x", Approval: "sometimes"}, wantErr: `mcp_servers.s.approval: "sometimes" is not one of always, never, auto`},
		{name: "negative startup timeout", server: "s", cfg: ServerConfig{Command: "x", StartupTimeoutSec: -1}, wantErr: "mcp_servers.s.startup_timeout_sec"},
		{name: "huge tool timeout", server: "s", cfg: ServerConfig{Command: "x", ToolTimeoutSec: 1e300}, wantErr: "mcp_servers.s.tool_timeout_sec"},
		{name: "empty enabled tool", server: "s", cfg: ServerConfig{Command: "x", EnabledTools: []string{"a", ""}}, wantErr: "mcp_servers.s.enabled_tools[1]"},
		{name: "empty disabled tool", server: "s", cfg: ServerConfig{Command: "x", DisabledTools: []string{""}}, wantErr: "mcp_servers.s.disabled_tools[0]"},
		{name: "empty server name", server: "", cfg: ServerConfig{Command: "x"}, wantErr: "empty name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate(tt.server)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("Validate = %v; want ErrInvalidConfig containing %q", err, tt.wantErr)
			}
		})
	}
	if _, err := NewManager(map[string]ServerConfig{"ok": {Command: "x"}, "bad": {}}, Options{}); err == nil ||
		!strings.Contains(err.Error(), "mcp_servers.bad.command") {
		t.Errorf("NewManager with a bad server = %v; want an error naming mcp_servers.bad.command", err)
	}
}

func TestResolveEnvironment(t *testing.T) {
	parent := []string{"PATH=/bin", "HOME=/home/u", "OPENAI_API_KEY=leak", "TOKEN=t0k", "HOME=/home/v"}
	cfg := ServerConfig{
		Command: "${HOME}/srv",
		Args:    []string{"--token=${TOKEN}", "$${LITERAL}"},
		Env:     map[string]string{"B": "${HOME}", "A": "x", "PATH": "/opt/bin"},
		Cwd:     "sub/${TOKEN}",
	}
	l, err := cfg.resolve("s", parent, "/work")
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	if want := []string{"--token=t0k", "${LITERAL}"}; !slices.Equal(l.args, want) {
		t.Errorf("args = %q, want %q", l.args, want)
	}
	// Inherited variables first (config overrides win), then config env sorted.
	if want := []string{"HOME=/home/v", "A=x", "B=/home/v", "PATH=/opt/bin"}; !slices.Equal(l.env, want) {
		t.Errorf("env = %q, want %q (no OPENAI_API_KEY, config PATH wins)", l.env, want)
	}
	if l.command != "/home/v/srv" {
		t.Errorf("command = %q, want /home/v/srv", l.command)
	}
	if l.dir != "/work/sub/t0k" {
		t.Errorf("dir = %q, want /work/sub/t0k", l.dir)
	}

	if l, err := (ServerConfig{Command: "x"}).resolve("s", parent, "/work"); err != nil || l.dir != "/work" {
		t.Errorf("no cwd: dir = %q, %v; want the session dir /work", l.dir, err)
	}

	for _, tt := range []struct {
		cfg     ServerConfig
		wantErr string
	}{
		{ServerConfig{Command: "x", Args: []string{"ok", "${MISSING}"}}, "mcp_servers.s.args[1]: ${MISSING}: MISSING is not set"},
		{ServerConfig{Command: "x", Env: map[string]string{"K": "${MISSING}"}}, "mcp_servers.s.env.K: ${MISSING}"},
		{ServerConfig{Command: "x", Env: map[string]string{"A=B": "v"}}, `mcp_servers.s.env: "A=B" is not a valid variable name`},
		{ServerConfig{Command: "x", Cwd: "${"}, "mcp_servers.s.cwd: unterminated"},
		{ServerConfig{Command: "${NOPE}/srv"}, "mcp_servers.s.command: ${NOPE}"},
	} {
		if _, err := tt.cfg.resolve("s", parent, "/work"); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("resolve(%+v) = %v; want error containing %q", tt.cfg, err, tt.wantErr)
		}
	}
}
