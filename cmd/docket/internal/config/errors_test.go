package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestErrorsNameFileKeyAndLine(t *testing.T) {
	for _, tc := range []struct {
		name       string
		file       string
		opts       LoadOptions
		source     string // "FILE" means the config file
		line       int
		key        string
		msg        string
		suggestion string
	}{
		{name: "unknown top-level key", file: "model = 'x'\naproval_policy = 'never'\n",
			source: "FILE", line: 2, key: "aproval_policy", msg: "unknown key", suggestion: "approval_policy"},
		{name: "unknown key in a table", file: "[sandbox_workspace_write]\nnetwork_acess = true\n",
			source: "FILE", line: 2, key: "sandbox_workspace_write.network_acess", suggestion: "network_access"},
		{name: "unknown key in an mcp server", file: "[mcp_servers.a]\ncommand = 'x'\n\nenabled_tool = ['t']\n",
			source: "FILE", line: 4, key: "mcp_servers.a.enabled_tool", suggestion: "enabled_tools"},
		{name: "unknown key in a profile", file: "[profiles.p]\nmodle = 'x'\n",
			source: "FILE", line: 2, key: "profiles.p.modle", suggestion: "model"},
		{name: "wrong type", file: "\n\ntool_output_max_bytes = 'big'\n",
			source: "FILE", line: 3, key: "tool_output_max_bytes", msg: "want an integer, got a TOML string"},
		{name: "bad TOML", file: "model = \n",
			source: "FILE", line: 1, msg: "invalid TOML"},
		{name: "misspelt policy in the file", file: "model = 'x'\napproval_policy = 'on-requst'\n",
			source: "FILE", line: 2, key: "approval_policy", msg: `did you mean "on-request"?`, suggestion: "on-request"},
		{name: "misspelt mode in a profile", file: "[profiles.p]\n\nsandbox_mode = 'workspace_write'\n", opts: LoadOptions{Profile: "p"},
			source: "FILE", line: 3, key: "sandbox_mode", suggestion: "workspace-write"},
		{name: "misspelt wire api", file: "[model_providers.local]\nbase_url = 'http://x'\nwire_api = 'chats'\n",
			source: "FILE", line: 3, key: "model_providers.local.wire_api", suggestion: "chat"},
		{name: "bad mcp approval", file: "[mcp_servers.a]\ncommand = 'x'\napproval = 'alwys'\n",
			source: "FILE", line: 3, key: "mcp_servers.a.approval", suggestion: "always"},
		{name: "negative size", file: "project_doc_max_bytes = -1\n",
			source: "FILE", line: 1, key: "project_doc_max_bytes", msg: "negative"},
		{name: "negative sandbox limit", file: "[sandbox]\nmax_processes = 64\nmax_memory_mb = -5\n",
			source: "FILE", line: 3, key: "sandbox.max_memory_mb", msg: "negative"},
		{name: "mcp server without command", file: "[mcp_servers.a]\nargs = ['x']\n",
			source: "FILE", line: 2, key: "mcp_servers.a.command", msg: "missing"},
		{name: "provider without base_url", file: "model_provider = 'local'\n[model_providers.local]\nwire_api = 'chat'\n",
			source: "FILE", line: 3, key: "model_providers.local", msg: "base_url is missing"},
		{name: "unknown provider", file: "model_provider = 'opnai'\n",
			source: "FILE", line: 1, key: "model_provider", suggestion: "openai"},
		{name: "reserved provider name", file: "[model_providers.script]\nbase_url = 'x'\n",
			source: "FILE", line: 1, key: "model_providers.script", msg: "reserved"},
		{name: "script provider without a script", opts: LoadOptions{Overrides: []string{"model_provider=script"}},
			source: "-c model_provider=script", key: "model_provider", msg: "model_script"},
		{name: "missing profile, no file", opts: LoadOptions{Profile: "fast"},
			source: "FILE", msg: `profile "fast" is selected but neither the config file nor`},
		{name: "undefined profile", file: "[profiles.fast]\nmodel = 'x'\n", opts: LoadOptions{Profile: "fats"},
			source: "FILE", msg: `profile "fats" is not defined`, suggestion: "fast"},
		{name: "misspelt policy in -c", opts: LoadOptions{Overrides: []string{"approval_policy=on-requst"}},
			source: "-c approval_policy=on-requst", key: "approval_policy", suggestion: "on-request"},
		{name: "unknown key in -c", opts: LoadOptions{Overrides: []string{"sandbox_workspace_write.netwrk_access=true"}},
			source: "-c sandbox_workspace_write.netwrk_access=true", key: "sandbox_workspace_write.netwrk_access", suggestion: "network_access"},
		{name: "wrong type in -c", opts: LoadOptions{Overrides: []string{"approval_timeout_sec=soon"}},
			source: "-c approval_timeout_sec=soon", key: "approval_timeout_sec", msg: "want an integer, got a TOML string"},
		{name: "-c without =", opts: LoadOptions{Overrides: []string{"model"}},
			source: "-c model", msg: "want KEY=VALUE"},
		{name: "misspelt policy flag", opts: LoadOptions{Flags: Flags{ApprovalPolicy: ptr("nevr")}},
			source: "--ask-for-approval", key: "approval_policy", suggestion: "never"},
		{name: "misspelt mode flag", opts: LoadOptions{Flags: Flags{SandboxMode: ptr("read-ony")}},
			source: "--sandbox", key: "sandbox_mode", suggestion: "read-only"},
		{name: "no suggestion for nonsense", opts: LoadOptions{Flags: Flags{SandboxMode: ptr("xyzzy")}},
			source: "--sandbox", key: "sandbox_mode", msg: "read-only, workspace-write, danger-full-access"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := homeWith(t, tc.file)
			opts := tc.opts
			opts.Home = home
			_, err := Load(opts)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Load error = %v (%T), want *Error", err, err)
			}
			source := tc.source
			if source == "FILE" {
				source = filepath.Join(home, FileName)
			}
			if ce.Source != source || ce.Line != tc.line || ce.Key != tc.key {
				t.Errorf("error at %q:%d key %q, want %q:%d key %q (%v)", ce.Source, ce.Line, ce.Key, source, tc.line, tc.key, err)
			}
			if !strings.Contains(ce.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", ce.Error(), tc.msg)
			}
			if ce.Suggestion != tc.suggestion {
				t.Errorf("suggestion = %q, want %q (%v)", ce.Suggestion, tc.suggestion, err)
			}
			if tc.suggestion != "" && !strings.Contains(ce.Error(), `"`+tc.suggestion+`"`) {
				t.Errorf("error %q does not show the suggestion", ce.Error())
			}
			t.Log(ce.Error())
			if strings.Contains(ce.Error(), "\n") {
				t.Errorf("error is not one line: %q", ce.Error())
			}
		})
	}
}

func TestUnreadableConfigFileIsAnError(t *testing.T) {
	home := t.TempDir()
	// A directory where the file should be: it exists, it cannot be read
	// (root reads any file, so permission bits cannot make this case).
	if err := os.Mkdir(filepath.Join(home, FileName), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Load(LoadOptions{Home: home})
	var ce *Error
	if !errors.As(err, &ce) || ce.Source != filepath.Join(home, FileName) || !strings.Contains(ce.Msg, "cannot read") {
		t.Fatalf("error = %v", err)
	}
}

func TestErrorStringFormat(t *testing.T) {
	e := &Error{Source: "/h/config.toml", Line: 3, Key: "approval_policy", Msg: "bad"}
	if got := e.Error(); got != "/h/config.toml:3: approval_policy: bad" {
		t.Errorf("Error() = %q", got)
	}
	e = &Error{Source: "-c x", Msg: "want KEY=VALUE"}
	if got := e.Error(); got != "-c x: want KEY=VALUE" {
		t.Errorf("Error() = %q", got)
	}
}

// FuzzLoadConfigFile feeds arbitrary config.toml text to Load: it must
// return a configuration or an *Error, never panic.
func FuzzLoadConfigFile(f *testing.F) {
	for _, s := range []string{
		"model = 'x'\n",
		"[profiles.p]\nmodel = 1\n",
		"[mcp_servers.\"a.b\"]\ncommand = 'x'\nenv = { K = 'v', L.M = 1 }\n",
		"[[model_providers]]\nx = 1\n",
		"sandbox_workspace_write.writable_roots = [1, 'a']\n",
		"approval_policy = 'on-requst'\n",
		"a.b.c.d = 1\n[a]\n",
	} {
		f.Add(s, "p")
	}
	f.Fuzz(func(t *testing.T, text, profile string) {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, FileName), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"", profile} {
			c, err := Load(LoadOptions{Home: home, Profile: p})
			var ce *Error
			if err != nil && !errors.As(err, &ce) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if err == nil && c == nil {
				t.Fatal("no config and no error")
			}
		}
	})
}
