package main

import (
	"strings"
	"testing"
)

const mcpEditConfig = `# my settings
model = "gpt-5"   # the default model

[mcp_servers.docs]
# how docs starts
command = "docs-server"
args = ["--port", "4000"]

[mcp_servers.docs.env]
TOKEN = "x"

# the sandbox, as the team agreed
[sandbox_workspace_write]
network_access = false # trailing
`

func TestEditServerKeepsEverythingElse(t *testing.T) {
	t.Parallel()
	fs := &newServer{command: "npx", args: []string{"-y", `quote"d`}, env: map[string]string{"K": "v"}}
	cases := []struct {
		name      string
		text      string
		server    string
		srv       *newServer
		wantFound bool
		want      []string // lines the result holds
		gone      []string // lines it must not hold
	}{
		{"remove a server with a sub-table", mcpEditConfig, "docs", nil, true,
			[]string{"# my settings", `model = "gpt-5"   # the default model`, "# the sandbox, as the team agreed", "network_access = false # trailing"},
			[]string{"docs-server", "TOKEN", "[mcp_servers.docs"}},
		{"add a new server at the end", mcpEditConfig, "fs", fs, false,
			[]string{"# how docs starts", "[mcp_servers.fs]", `args = ["-y", "quote\"d"]`, `env = { "K" = "v" }`, "network_access = false # trailing"}, nil},
		{"replace in place", mcpEditConfig, "docs", &newServer{url: "https://example.com/mcp"}, true,
			[]string{`url = "https://example.com/mcp"`, "# the sandbox, as the team agreed"}, []string{"docs-server", "TOKEN"}},
		{"add to an empty file", "", "fs", fs, false, []string{"[mcp_servers.fs]"}, nil},
		{"remove a missing server", mcpEditConfig, "nope", nil, false, []string{"[mcp_servers.docs]"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, found, err := editServer(tc.text, tc.server, tc.srv)
			if err != nil {
				t.Fatal(err)
			}
			if found != tc.wantFound {
				t.Errorf("found %t, want %t", found, tc.wantFound)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w+"\n") {
					t.Errorf("result lacks %q:\n%s", w, out)
				}
			}
			for _, g := range tc.gone {
				if strings.Contains(out, g) {
					t.Errorf("result still holds %q:\n%s", g, out)
				}
			}
		})
	}
}

func TestEditServerRefusesWhatItCannotEditSafely(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, text, want string }{
		{"inline in [mcp_servers]", "[mcp_servers]\ndocs = { command = \"x\" }\n", "defined inline"},
		{"dotted key at the top", "mcp_servers.docs.command = \"x\"\n", "defined inline"},
		{"split table", "[mcp_servers.docs]\ncommand = \"x\"\n[tui]\n[mcp_servers.docs.env]\nA = \"b\"\n", "split across"},
		{"not TOML", "[mcp_servers.docs]\ncommand = \n", "not valid TOML"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := editServer(tc.text, "docs", nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}
