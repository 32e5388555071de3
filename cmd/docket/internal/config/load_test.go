package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/docket-engine/docket/states/policy"
)

// envOf returns an Env func over a fixed map.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// homeWith creates a home directory holding config.toml with text.
func homeWith(t *testing.T, text string) string {
	t.Helper()
	home := t.TempDir()
	if text != "" {
		if err := os.WriteFile(filepath.Join(home, FileName), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func ptr(s string) *string { return &s }

func mustLoad(t *testing.T, opts LoadOptions) *Config {
	t.Helper()
	c, err := Load(opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func TestDefaultsApplyWithoutAConfigFile(t *testing.T) {
	home := homeWith(t, "")
	c := mustLoad(t, LoadOptions{Home: home})
	if c.ApprovalPolicy != policy.OnRequest.String() || c.SandboxMode != policy.ReadOnly.String() || c.ModelProvider != ProviderOpenAI {
		t.Errorf("defaults: policy %q mode %q provider %q", c.ApprovalPolicy, c.SandboxMode, c.ModelProvider)
	}
	if p := c.Provider(); p.WireAPI != WireResponses || p.EnvKey != "OPENAI_API_KEY" || p.BaseURL == "" {
		t.Errorf("default provider = %+v", p)
	}
	if c.ProjectDocMaxBytes != 32768 || c.ToolOutputMaxBytes <= 0 || c.ApprovalTimeoutSec != 0 {
		t.Errorf("default sizes: %+v", c)
	}
	if src := c.Sources["approval_policy"]; src.Layer != LayerDefault {
		t.Errorf("approval_policy source = %+v, want default", src)
	}
	if c.Home != home || c.File != filepath.Join(home, FileName) {
		t.Errorf("home %q file %q", c.Home, c.File)
	}
}

func TestFileLayerOverridesDefaultsAndRecordsLines(t *testing.T) {
	home := homeWith(t, `# my config
approval_policy = "never"

[sandbox_workspace_write]
network_access = true
writable_roots = ["/data"]

[mcp_servers.docs]
command = "docs-server"
args = ["--stdio"]
env = { TOKEN = "secret" }
startup_timeout_sec = 5
`)
	c := mustLoad(t, LoadOptions{Home: home})
	if c.ApprovalPolicy != policy.Never.String() || !c.SandboxWorkspaceWrite.NetworkAccess {
		t.Errorf("file values not applied: %+v", c)
	}
	if !reflect.DeepEqual(c.SandboxWorkspaceWrite.WritableRoots, []string{"/data"}) {
		t.Errorf("writable_roots = %v", c.SandboxWorkspaceWrite.WritableRoots)
	}
	srv := c.MCPServers["docs"]
	if srv.Command != "docs-server" || srv.Env["TOKEN"] != "secret" || srv.StartupTimeoutSec != 5 {
		t.Errorf("mcp server = %+v", srv)
	}
	for key, line := range map[string]int{
		"approval_policy":                        2,
		"sandbox_workspace_write.network_access": 5,
		"mcp_servers.docs.env.TOKEN":             11,
	} {
		if src := c.Sources[key]; src.Layer != LayerFile || src.Line != line || src.File != c.File {
			t.Errorf("source of %s = %+v, want file line %d", key, src, line)
		}
	}
	if src := c.Sources["sandbox_mode"]; src.Layer != LayerDefault {
		t.Errorf("untouched key source = %+v", src)
	}
}

func TestProfileLayerOverridesTheFile(t *testing.T) {
	home := homeWith(t, `model = "base-model"
sandbox_mode = "read-only"

[profiles.fast]
model = "fast-model"
sandbox_workspace_write.exclude_slash_tmp = true

[profiles.slow]
model = "slow-model"
`)
	c := mustLoad(t, LoadOptions{Home: home, Profile: "fast"})
	if c.Model != "fast-model" || !c.SandboxWorkspaceWrite.ExcludeSlashTmp || c.SandboxMode != policy.ReadOnly.String() {
		t.Errorf("profile not applied: model %q exclude %v mode %q", c.Model, c.SandboxWorkspaceWrite.ExcludeSlashTmp, c.SandboxMode)
	}
	if src := c.Sources["model"]; src.Layer != LayerProfile || src.Name != "fast" || src.Line != 5 {
		t.Errorf("model source = %+v", src)
	}
	if c := mustLoad(t, LoadOptions{Home: home}); c.Model != "base-model" {
		t.Errorf("without --profile model = %q", c.Model)
	}
}

func TestEnvironmentLayerOverridesTheProfile(t *testing.T) {
	home := homeWith(t, `[profiles.p]
model = "profile-model"
`)
	c := mustLoad(t, LoadOptions{Profile: "p", Env: envOf(map[string]string{
		"DOCKET_HOME":     home,
		"DOCKET_MODEL":    "env-model",
		"OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
		"OPENAI_API_KEY":  "sk-test",
		"TMPDIR":          "/scratch",
	})})
	if c.Home != home {
		t.Errorf("home = %q, want $DOCKET_HOME %q", c.Home, home)
	}
	if c.Model != "env-model" || c.Sources["model"].Name != "$DOCKET_MODEL" {
		t.Errorf("model %q from %+v", c.Model, c.Sources["model"])
	}
	if c.Provider().BaseURL != "http://127.0.0.1:9/v1" || c.Sources["model_providers.openai.base_url"].Name != "$OPENAI_BASE_URL" {
		t.Errorf("base_url %q", c.Provider().BaseURL)
	}
	if c.APIKey != "sk-test" || c.APIKeyEnv != "OPENAI_API_KEY" {
		t.Errorf("api key %q from %q", c.APIKey, c.APIKeyEnv)
	}
	if c.SessionConfig().TmpdirEnv != "/scratch" {
		t.Errorf("tmpdir = %q", c.SessionConfig().TmpdirEnv)
	}
}

func TestHomeFlagBeatsDocketHomeAndHome(t *testing.T) {
	flag, env, user := t.TempDir(), t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		name string
		opts LoadOptions
		want string
	}{
		{"flag", LoadOptions{Home: flag, Env: envOf(map[string]string{"DOCKET_HOME": env, "HOME": user})}, flag},
		{"DOCKET_HOME", LoadOptions{Env: envOf(map[string]string{"DOCKET_HOME": env, "HOME": user})}, env},
		{"HOME", LoadOptions{Env: envOf(map[string]string{"HOME": user})}, filepath.Join(user, ".docket")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if c := mustLoad(t, tc.opts); c.Home != tc.want {
				t.Errorf("home = %q, want %q", c.Home, tc.want)
			}
		})
	}
	if _, err := Load(LoadOptions{}); err == nil {
		t.Error("no home at all: want an error")
	}
}

func TestOverridesBeatTheEnvironment(t *testing.T) {
	home := homeWith(t, "")
	c := mustLoad(t, LoadOptions{Home: home, Env: envOf(map[string]string{"DOCKET_MODEL": "env-model"}),
		Overrides: []string{
			"model=o3",
			"sandbox_workspace_write.network_access=true",
			`sandbox_workspace_write.writable_roots=["/a", "/b"]`,
			"approval_timeout_sec=30",
			`mcp_servers.x.command="srv"`,
			"mcp_servers.x.enabled=false",
		}})
	if c.Model != "o3" || c.Sources["model"].Name != "-c model=o3" {
		t.Errorf("model %q from %+v", c.Model, c.Sources["model"])
	}
	if !c.SandboxWorkspaceWrite.NetworkAccess || !reflect.DeepEqual(c.SandboxWorkspaceWrite.WritableRoots, []string{"/a", "/b"}) {
		t.Errorf("workspace write = %+v", c.SandboxWorkspaceWrite)
	}
	if c.ApprovalTimeout().Seconds() != 30 {
		t.Errorf("approval timeout = %v", c.ApprovalTimeout())
	}
	if s := c.MCPServers["x"]; s.Command != "srv" || s.Enabled == nil || *s.Enabled {
		t.Errorf("mcp server x = %+v", s)
	}
}

func TestFlagsBeatOverrides(t *testing.T) {
	home := homeWith(t, "")
	c := mustLoad(t, LoadOptions{Home: home,
		Overrides: []string{"approval_policy=untrusted", "sandbox_mode=workspace-write", "model=from-c"},
		Flags:     Flags{ApprovalPolicy: ptr("never"), SandboxMode: ptr("danger-full-access"), Model: ptr("from-flag"), ModelScript: ptr("s.jsonl")}})
	if c.ApprovalPolicy != policy.Never.String() || c.SandboxMode != policy.DangerFullAccess.String() || c.Model != "from-flag" {
		t.Errorf("flags lost: %q %q %q", c.ApprovalPolicy, c.SandboxMode, c.Model)
	}
	if c.ModelProvider != ProviderScript || c.ModelScript != "s.jsonl" || c.Sources["model_script"].Name != "--model-script" {
		t.Errorf("--model-script: provider %q script %q", c.ModelProvider, c.ModelScript)
	}
	if c.Sources["approval_policy"].Name != "--ask-for-approval" {
		t.Errorf("source = %+v", c.Sources["approval_policy"])
	}
	if c.APIKeyEnv != "" {
		t.Errorf("script provider reads no key, got %q", c.APIKeyEnv)
	}
}

// TestPrecedenceChain sets one key in every layer and removes the layers
// from the top, one at a time: each time the next layer down must win.
func TestPrecedenceChain(t *testing.T) {
	home := homeWith(t, `model = "file"
[profiles.p]
model = "profile"
`)
	full := LoadOptions{
		Home:      home,
		Profile:   "p",
		Env:       envOf(map[string]string{"DOCKET_MODEL": "env"}),
		Overrides: []string{"model=override"},
		Flags:     Flags{Model: ptr("flag")},
	}
	steps := []struct {
		want, layer string
		strip       func(o *LoadOptions)
	}{
		{"flag", LayerFlag, func(o *LoadOptions) {}},
		{"override", LayerOverride, func(o *LoadOptions) { o.Flags.Model = nil }},
		{"env", LayerEnv, func(o *LoadOptions) { o.Overrides = nil }},
		{"profile", LayerProfile, func(o *LoadOptions) { o.Env = nil }},
		{"file", LayerFile, func(o *LoadOptions) { o.Profile = "" }},
		{"gpt-5-codex", LayerDefault, func(o *LoadOptions) {
			if err := os.Remove(filepath.Join(home, FileName)); err != nil {
				t.Fatal(err)
			}
		}},
	}
	opts := full
	for _, s := range steps {
		s.strip(&opts)
		c := mustLoad(t, opts)
		if c.Model != s.want || c.Sources["model"].Layer != s.layer {
			t.Errorf("layer %s: model = %q from %+v, want %q", s.layer, c.Model, c.Sources["model"], s.want)
		}
	}
}

func TestSettingsAreSortedTOMLAndRedacted(t *testing.T) {
	home := homeWith(t, `approval_policy = "never"
[mcp_servers.gh]
command = "gh-mcp"
env = { GITHUB_TOKEN = "ghp_secret" }
`)
	c := mustLoad(t, LoadOptions{Home: home, Overrides: []string{`sandbox_workspace_write.writable_roots=["/x"]`}})
	got := map[string]string{}
	prev := ""
	for _, s := range c.Settings() {
		if s.Key <= prev {
			t.Errorf("settings not sorted: %q after %q", s.Key, prev)
		}
		prev = s.Key
		got[s.Key] = s.Value
	}
	for k, want := range map[string]string{
		"approval_policy":                        "'never'",
		"tool_output_max_bytes":                  "16384",
		"sandbox_workspace_write.network_access": "false",
		"sandbox_workspace_write.writable_roots": "['/x']",
		"mcp_servers.gh.env.GITHUB_TOKEN":        "'(redacted)'",
	} {
		if got[k] != want {
			t.Errorf("setting %s = %q, want %q", k, got[k], want)
		}
	}
	for _, s := range c.Settings() {
		if s.Value == "'ghp_secret'" {
			t.Error("a credential reached the settings snapshot")
		}
	}
}
