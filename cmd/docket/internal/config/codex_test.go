package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func fixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "codex_config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestARealisticCodexConfigLoads(t *testing.T) {
	home := homeWith(t, fixture(t))
	c := mustLoad(t, LoadOptions{Home: home})
	// profile = "deep" selects the profile when --profile is not given.
	if c.Profile != "deep" || c.ApprovalPolicy != "untrusted" || c.ModelReasoningEffort != "xhigh" {
		t.Errorf("default profile not applied: profile %q policy %q effort %q", c.Profile, c.ApprovalPolicy, c.ModelReasoningEffort)
	}
	if c.ModelReasoningSummary != "detailed" || c.ModelVerbosity != "low" {
		t.Errorf("summary %q verbosity %q", c.ModelReasoningSummary, c.ModelVerbosity)
	}
	if !slices.Equal(c.Notify, []string{"notify-send", "--app-name=codex"}) {
		t.Errorf("notify = %q", c.Notify)
	}
	if p := c.ShellEnvironmentPolicy; p.Inherit != InheritCore || p.Set["CI"] != "1" || !slices.Contains(p.Exclude, "AWS_*") || len(p.IncludeOnly) != 5 {
		t.Errorf("shell_environment_policy = %+v", p)
	}
	if c.ModelProviders["azure"].Name != "Azure OpenAI" || c.ModelProviders["ollama"].WireAPI != WireChat {
		t.Errorf("providers = %+v", c.ModelProviders)
	}
	if s := c.MCPServers["linear"]; s.URL != "https://mcp.linear.app/mcp" || s.BearerTokenEnvVar != "LINEAR_API_KEY" ||
		s.HTTPHeaders["X-Client"] != "codex" || s.EnvHTTPHeaders["X-Workspace"] != "LINEAR_WORKSPACE" {
		t.Errorf("remote mcp server = %+v", s)
	}
	if c.Projects["/home/user/src/app"].TrustLevel != TrustTrusted || c.Projects["/home/user/scratch"].TrustLevel != TrustUntrusted {
		t.Errorf("projects = %+v", c.Projects)
	}
	if len(c.Warnings) != 0 || len(c.Notes) != 1 {
		t.Fatalf("want no warning and exactly one note, got %q and %q", c.Warnings, c.Notes)
	}
	w := c.Notes[0]
	for _, want := range []string{c.File, "file_opener (line 14)", "hide_agent_reasoning (line 15)", "show_raw_agent_reasoning",
		"check_for_update_on_startup", "model_providers.azure.env_key_instructions", "[history] (line 78)", "[tui]", "[features]", "[notice]"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q does not name %q", w, want)
		}
	}
	for _, s := range c.Settings() {
		if strings.HasPrefix(s.Key, "tui") || strings.HasPrefix(s.Key, "history") || s.Key == "file_opener" {
			t.Errorf("ignored key %s reached the recorded settings", s.Key)
		}
	}
	if c := mustLoad(t, LoadOptions{Home: home, Profile: "local"}); c.Profile != "local" || c.ModelProvider != "ollama" || c.ProviderDisplayName() != "Ollama" {
		t.Errorf("--profile local: profile %q provider %q (%q)", c.Profile, c.ModelProvider, c.ProviderDisplayName())
	}
}

// TestCodexKeyDecisions holds one row per decision of docs/decisions.md
// ("Codex config keys", "Codex 0.171 config"): implemented keys load and
// take effect; Codex keys Docket has no use for load with a note saying
// why; only keys Codex does not have either are errors.
func TestCodexKeyDecisions(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		check      func(*Config) bool // implemented: the value took effect
		warn       string             // ignored: the note names this
		err        string             // rejected: the error says this
		suggestion string
	}{
		{name: "model_reasoning_effort is implemented", file: "model_reasoning_effort = 'medium'\n",
			check: func(c *Config) bool { return c.ModelReasoningEffort == "medium" }},
		{name: "model_reasoning_summary is implemented", file: "model_reasoning_summary = 'concise'\n",
			check: func(c *Config) bool { return c.ModelReasoningSummary == "concise" }},
		{name: "model_verbosity is implemented", file: "model_verbosity = 'high'\n",
			check: func(c *Config) bool { return c.ModelVerbosity == "high" }},
		{name: "notify is implemented", file: "notify = ['terminal-notifier', '-title', 'Docket']\n",
			check: func(c *Config) bool { return len(c.Notify) == 3 }},
		{name: "shell_environment_policy is implemented", file: "[shell_environment_policy]\ninherit = 'none'\nset = { A = 'b' }\n",
			check: func(c *Config) bool { return c.ShellEnvironmentPolicy.Inherit == InheritNone }},
		{name: "profile is implemented", file: "profile = 'p'\n[profiles.p]\nmodel = 'from-p'\n",
			check: func(c *Config) bool { return c.Model == "from-p" && c.Profile == "p" }},
		{name: "projects trust_level is implemented", file: "[projects.'/src/app']\ntrust_level = 'trusted'\n",
			check: func(c *Config) bool { return c.TrustFor("/src/app").Trusted() && !c.TrustFor("/src/other").Trusted() }},
		{name: "provider display name is implemented", file: "model_provider = 'az'\n[model_providers.az]\nname = 'Azure'\nbase_url = 'https://x/v1'\n",
			check: func(c *Config) bool { return c.ProviderDisplayName() == "Azure" }},
		{name: "remote mcp server is implemented", file: "[mcp_servers.r]\nurl = 'https://mcp.example.com/mcp'\nbearer_token_env_var = 'TOK'\n",
			check: func(c *Config) bool { return c.MCPServers["r"].URL != "" }},
		{name: "file_opener is ignored", file: "file_opener = 'cursor'\n", warn: "file_opener (line 1)"},
		{name: "hide_agent_reasoning is ignored", file: "model = 'x'\nhide_agent_reasoning = true\n", warn: "hide_agent_reasoning (line 2)"},
		{name: "[history] is ignored", file: "[history]\npersistence = 'none'\n", warn: "[history] (line 1)"},
		{name: "[tui] is ignored", file: "[tui]\nnotifications = true\n", warn: "[tui]"},
		{name: "[features] is ignored", file: "[features]\nweb_search_request = true\n", warn: "[features]"},
		{name: "experimental_use_rmcp_client is ignored", file: "experimental_use_rmcp_client = true\n", warn: "experimental_use_rmcp_client"},
		{name: "[notice] is ignored", file: "[notice]\nhide_full_access_warning = true\n", warn: "[notice]"},
		{name: "ignored keys in a profile", file: "[profiles.p]\nhide_agent_reasoning = true\n", warn: "profiles.p.hide_agent_reasoning"},
		{name: "model_context_window is implemented", file: "model = 'gpt-5-codex'\nmodel_context_window = 400000\n",
			check: func(c *Config) bool {
				return c.SessionConfig().ContextWindow == 400_000 && c.SessionConfig().AutoCompactTokenLimit == 360_000
			}},
		{name: "model_auto_compact_token_limit is implemented", file: "model_auto_compact_token_limit = 1000\n",
			check: func(c *Config) bool { return c.SessionConfig().AutoCompactTokenLimit == 1000 }},
		{name: "a negative context window", file: "model_context_window = -1\n", err: "negative"},
		{name: "tools is noted with why", file: "[tools]\nweb_search = true\n", warn: "Docket's tools are"},
		{name: "mcp env_vars is noted with the way to do it", file: "[mcp_servers.a]\ncommand = 'x'\nenv_vars = ['TOK']\n", warn: `env = { NAME = "${NAME}" }`},
		{name: "provider stream_max_retries is implemented", file: "[model_providers.a]\nbase_url = 'http://x'\nstream_max_retries = 3\n",
			check: func(c *Config) bool { return *c.ModelProviders["a"].StreamMaxRetries == 3 }},
		{name: "provider headers and query parameters are implemented",
			file: "[model_providers.a]\nbase_url = 'http://x'\nhttp_headers = { X-A = 'a' }\nenv_http_headers = { X-B = 'B_VAR' }\nquery_params = { api-version = '2025-04-01-preview' }\n",
			check: func(c *Config) bool {
				p := c.ModelProviders["a"]
				return p.HTTPHeaders["X-A"] == "a" && p.EnvHTTPHeaders["X-B"] == "B_VAR" && p.QueryParams["api-version"] == "2025-04-01-preview"
			}},
		{name: "tool_output_token_limit is a byte cap", file: "tool_output_token_limit = 1000\n",
			check: func(c *Config) bool { return c.ToolOutputMaxBytes == 4000 }},
		{name: "tool_output_max_bytes wins over the token limit", file: "tool_output_token_limit = 1000\ntool_output_max_bytes = 100\n",
			check: func(c *Config) bool { return c.ToolOutputMaxBytes == 100 }},
		{name: "project_doc_fallback_filenames is implemented", file: "project_doc_fallback_filenames = ['CLAUDE.md']\n",
			check: func(c *Config) bool { return slices.Equal(c.ProjectDocFallbackFilenames, []string{"CLAUDE.md"}) }},
		{name: "a fallback file name with a folder", file: "project_doc_fallback_filenames = ['../x.md']\n", err: "not a file name"},
		{name: "review_model is noted", file: "review_model = 'gpt-5.5'\n", warn: "review_model (line 1: Docket has no review command)"},
		{name: "web_search is noted", file: "web_search = 'cached'\n", warn: "web_search (line 1"},
		{name: "preferred_auth_method is noted", file: "preferred_auth_method = 'apikey'\n", warn: "docket login"},
		{name: "model_supports_reasoning_summaries is noted, not a typo of model_script", file: "model_supports_reasoning_summaries = true\n",
			warn: "model_supports_reasoning_summaries (line 1"},
		{name: "experimental_use_profile is noted", file: "[shell_environment_policy]\nexperimental_use_profile = true\n",
			warn: "shell_environment_policy.experimental_use_profile"},
		{name: "default_permissions is read, not noted", file: "default_permissions = ':read-only'\n",
			check: func(c *Config) bool { return c.DefaultPermissions == ":read-only" }},
		{name: "codex otel none turns export off", file: "[otel]\nexporter = 'none'\n",
			check: func(c *Config) bool { return c.OTel.Enabled != nil && !*c.OTel.Enabled }},
		{name: "codex otel otlp-grpc gives endpoint and protocol", file: "[otel]\nenvironment = 'dev'\nexporter = { otlp-grpc = { endpoint = 'http://c:4317', headers = { k = 'v' } } }\n",
			check: func(c *Config) bool {
				o := c.OTel
				return o.Endpoint == "http://c:4317" && o.Protocol == "grpc" && o.Headers["k"] == "v" && o.Environment == "dev"
			}},
		{name: "codex otel otlp-http to logs sends traces", file: "[otel]\nexporter = { otlp-http = { endpoint = 'http://c:4318/v1/logs', protocol = 'binary' } }\n",
			check: func(c *Config) bool {
				return c.OTel.Endpoint == "http://c:4318/v1/traces" && c.OTel.Protocol == "http/protobuf"
			}},
		{name: "codex otel log_user_prompt is noted", file: "[otel]\nlog_user_prompt = true\n", warn: "never prompts"},
		{name: "a bad codex otel exporter", file: "[otel]\nexporter = 'zipkin'\n", err: "is not an exporter"},
		{name: "a typo in approval_policy stays an error", file: "aproval_policy = 'never'\n", err: "unknown key", suggestion: "approval_policy"},
		{name: "a typo in sandbox_mode stays an error", file: "sandbox_mod = 'danger-full-access'\n", err: "unknown key", suggestion: "sandbox_mode"},
		{name: "a typo in an ignored key is an error", file: "file_opner = 'vscode'\n", err: "unknown key", suggestion: "file_opener"},
		{name: "a bad reasoning effort", file: "model_reasoning_effort = 'hihg'\n", err: "not a valid reasoning effort", suggestion: "high"},
		{name: "a bad verbosity", file: "model_verbosity = 'loud'\n", err: "not a valid verbosity", suggestion: "low"},
		{name: "a bad trust level", file: "[projects.'/a']\ntrust_level = 'trustd'\n", err: "trust level", suggestion: "trusted"},
		{name: "a relative project path", file: "[projects.'src/app']\ntrust_level = 'trusted'\n", err: "not an absolute path"},
		{name: "a bad inherit", file: "[shell_environment_policy]\ninherit = 'nne'\n", err: "inherit value", suggestion: "none"},
		{name: "a bad env pattern", file: "[shell_environment_policy]\nexclude = ['[A-']\n", err: "not a valid pattern"},
		{name: "an undefined default profile", file: "profile = 'fats'\n[profiles.fast]\n", err: `profile "fats" is not defined`, suggestion: "fast"},
		{name: "an mcp server with command and url", file: "[mcp_servers.a]\ncommand = 'x'\nurl = 'http://h/mcp'\n", err: "not both"},
		{name: "a remote mcp server with args", file: "[mcp_servers.a]\nurl = 'http://h/mcp'\nargs = ['x']\n", err: "only a local server"},
		{name: "a local mcp server with a bearer token", file: "[mcp_servers.a]\ncommand = 'x'\nbearer_token_env_var = 'T'\n", err: "only a remote server"},
		{name: "an mcp url that is not http", file: "[mcp_servers.a]\nurl = 'ws://h/mcp'\n", err: "not an http(s) URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(LoadOptions{Home: homeWith(t, tc.file)})
			if tc.err != "" {
				var ce *Error
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.err) || ce.Suggestion != tc.suggestion {
					t.Fatalf("Load = %v; want an error saying %q, suggesting %q", err, tc.err, tc.suggestion)
				}
				if ce.Line == 0 {
					t.Errorf("error %v names no line", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if tc.check != nil && !tc.check(c) {
				t.Errorf("the value did not take effect: %+v", c)
			}
			switch {
			case len(c.Warnings) > 0:
				t.Errorf("unexpected warnings %q", c.Warnings)
			case tc.warn == "" && len(c.Notes) > 0:
				t.Errorf("unexpected notes %q", c.Notes)
			case tc.warn != "" && (len(c.Notes) != 1 || !strings.Contains(c.Notes[0], tc.warn)):
				t.Errorf("notes %q; want one naming %q", c.Notes, tc.warn)
			}
		})
	}
}

func TestEveryUnknownKeyIsReportedAtOnceWithItsLine(t *testing.T) {
	home := homeWith(t, `model = "x"
aproval_policy = "never"
file_opener = "vscode"

[sandbox_workspace_write]
network_acess = true

[mcp_servers.a]
command = "srv"
env_vars_typo = ["TOK"]

[tui]
animations = false
`)
	_, err := Load(LoadOptions{Home: home})
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("Load = %v (%T); want Errors", err, err)
	}
	file := filepath.Join(home, FileName)
	want := []struct {
		line int
		key  string
	}{{2, "aproval_policy"}, {6, "sandbox_workspace_write.network_acess"}, {10, "mcp_servers.a.env_vars_typo"}}
	if len(errs) != len(want) {
		t.Fatalf("%d errors, want %d (ignored keys are not errors): %v", len(errs), len(want), err)
	}
	for i, w := range want {
		if errs[i].Source != file || errs[i].Line != w.line || errs[i].Key != w.key {
			t.Errorf("error %d = %s:%d %s, want line %d %s", i, errs[i].Source, errs[i].Line, errs[i].Key, w.line, w.key)
		}
		if !strings.Contains(err.Error(), errs[i].Error()) {
			t.Errorf("the message does not list %q:\n%v", errs[i].Error(), err)
		}
	}
	if !strings.HasPrefix(err.Error(), "3 problems in the configuration:") {
		t.Errorf("message = %q", err.Error())
	}
}

func TestProjectTrustDecidesWhetherTheProjectConfigLoads(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "pkg", "a")
	for _, d := range []string{filepath.Join(sub, ProjectDirName, "rules"), filepath.Join(repo, ProjectDirName)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(sub, ProjectDirName, FileName), []byte("model = 'project-model'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		projects string
		trusted  bool
		warn     string
	}{
		{"trusted by its own path", "[projects.'" + sub + "']\ntrust_level = 'trusted'\n", true, ""},
		{"trusted by its git root", "[projects.'" + repo + "']\ntrust_level = 'trusted'\n", true, ""},
		{"marked untrusted", "[projects.'" + sub + "']\ntrust_level = 'untrusted'\n", false, "is marked untrusted"},
		{"not listed", "[projects.'/elsewhere']\ntrust_level = 'trusted'\n", false, "is not in the trust list"},
		{"no projects at all", "", false, "is not in the trust list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustLoad(t, LoadOptions{Home: homeWith(t, tc.projects), Cwd: sub})
			if c.Trust.Trusted() != tc.trusted {
				t.Errorf("trust = %+v, want trusted=%v", c.Trust, tc.trusted)
			}
			if tc.trusted {
				src := c.Sources["model"]
				if c.Model != "project-model" || src.Layer != LayerProject || src.Line != 1 {
					t.Errorf("project config not applied: model %q from %+v", c.Model, src)
				}
				if len(c.Warnings) != 0 {
					t.Errorf("warnings %q", c.Warnings)
				}
				return
			}
			if c.Model == "project-model" {
				t.Error("an untrusted project's config was loaded")
			}
			if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], tc.warn) || !strings.Contains(c.Warnings[0], "rules") ||
				!strings.Contains(c.Warnings[0], "trust_level = \"trusted\"") {
				t.Errorf("warnings %q; want one saying %q, naming the rules and how to trust", c.Warnings, tc.warn)
			}
		})
	}
	t.Run("a sandbox stub above is no git root", func(t *testing.T) {
		// A session keeps an empty 0555 .git in /tmp while it runs: a
		// project below it is not that directory's project. Trusting the
		// stub's directory trusts nothing below it.
		above := t.TempDir()
		stub := filepath.Join(above, ".git")
		if err := os.Mkdir(stub, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(stub, 0o755) })
		proj := filepath.Join(above, "proj")
		if err := os.MkdirAll(filepath.Join(proj, ProjectDirName), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, ProjectDirName, FileName), []byte("model = 'project-model'\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		c := mustLoad(t, LoadOptions{Home: homeWith(t, "[projects.'"+above+"']\ntrust_level = 'trusted'\n"), Cwd: proj})
		if c.Trust.Trusted() || c.Model == "project-model" {
			t.Errorf("a stub .git made %s the project's root: trust %+v, model %q", above, c.Trust, c.Model)
		}
		// The same directory with something in its .git is a repository.
		if err := os.Chmod(stub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(stub, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if c := mustLoad(t, LoadOptions{Home: homeWith(t, "[projects.'"+above+"']\ntrust_level = 'trusted'\n"), Cwd: proj}); !c.Trust.Trusted() {
			t.Errorf("a real .git above: trust %+v, want trusted by its git root", c.Trust)
		}
	})
	t.Run("a project cannot trust anything", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, ProjectDirName), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ProjectDirName, FileName), []byte("model = 'm'\n[projects.'/x']\ntrust_level = 'trusted'\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(LoadOptions{Home: homeWith(t, "[projects.'"+dir+"']\ntrust_level = 'trusted'\n"), Cwd: dir})
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != "projects" || ce.Line != 2 {
			t.Fatalf("Load = %v; want an error at projects, line 2", err)
		}
	})
	t.Run("an unknown key in the project config names that file", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, ProjectDirName), 0o755); err != nil {
			t.Fatal(err)
		}
		pf := filepath.Join(dir, ProjectDirName, FileName)
		if err := os.WriteFile(pf, []byte("modle = 'm'\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(LoadOptions{Home: homeWith(t, "[projects.'"+dir+"']\ntrust_level = 'trusted'\n"), Cwd: dir})
		var ce *Error
		if !errors.As(err, &ce) || ce.Source != pf || ce.Suggestion != "model" {
			t.Fatalf("Load = %v; want an error in %s suggesting model", err, pf)
		}
	})
}

func TestShellEnvironmentPolicyBuildsTheCommandEnv(t *testing.T) {
	parent := []string{"PATH=/bin", "HOME=/h", "OPENAI_API_KEY=sk", "GITHUB_TOKEN=gh", "DB_PASSWORD=pw", "AWS_REGION=eu", "aws_profile=p", "EDITOR=vi"}
	for _, tc := range []struct {
		name       string
		policy     ShellEnvPolicy
		want       []string
		keepSecret bool
	}{
		{"default: all but secrets", ShellEnvPolicy{},
			[]string{"PATH=/bin", "HOME=/h", "AWS_REGION=eu", "aws_profile=p", "EDITOR=vi"}, false},
		{"core", ShellEnvPolicy{Inherit: InheritCore}, []string{"PATH=/bin", "HOME=/h"}, false},
		{"none with set", ShellEnvPolicy{Inherit: InheritNone, Set: map[string]string{"CI": "1"}}, []string{"CI=1"}, false},
		{"exclude is a case-insensitive glob", ShellEnvPolicy{Exclude: []string{"aws_*"}},
			[]string{"PATH=/bin", "HOME=/h", "EDITOR=vi"}, false},
		{"ignore_default_excludes keeps secrets", ShellEnvPolicy{IgnoreDefaultExcludes: true, Exclude: []string{"DB_*"}},
			[]string{"PATH=/bin", "HOME=/h", "OPENAI_API_KEY=sk", "GITHUB_TOKEN=gh", "AWS_REGION=eu", "aws_profile=p", "EDITOR=vi"}, true},
		{"set overrides and may add a secret on purpose", ShellEnvPolicy{Set: map[string]string{"HOME": "/other", "NPM_TOKEN": "t"}},
			[]string{"PATH=/bin", "HOME=/other", "AWS_REGION=eu", "aws_profile=p", "EDITOR=vi", "NPM_TOKEN=t"}, true},
		{"include_only runs last", ShellEnvPolicy{Set: map[string]string{"CI": "1"}, IncludeOnly: []string{"PATH", "C?"}},
			[]string{"PATH=/bin", "CI=1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, keep := tc.policy.Build(parent)
			if !slices.Equal(got, tc.want) || keep != tc.keepSecret {
				t.Errorf("Build = %q keepSecrets %v; want %q %v", got, keep, tc.want, tc.keepSecret)
			}
		})
	}
}

func TestCredentialsInNewKeysAreRedacted(t *testing.T) {
	c := mustLoad(t, LoadOptions{Home: homeWith(t, `[mcp_servers.r]
url = "https://h/mcp"
http_headers = { Authorization = "Bearer secret-1" }
[shell_environment_policy]
set = { NPM_TOKEN = "secret-2" }
`)})
	for _, s := range c.Settings() {
		if strings.Contains(s.Value, "secret-") {
			t.Errorf("setting %s = %s leaks a credential", s.Key, s.Value)
		}
	}
}

// TestCodexInterfaceOverridesAreWarnedAboutNotRefused: -c may set the same
// Codex interface keys a config.toml may hold; they are ignored with a
// warning naming the override, as in the file, while a typo stays an error.
func TestCodexInterfaceOverridesAreWarnedAboutNotRefused(t *testing.T) {
	for _, tc := range []struct {
		name, override, warn, err string
	}{
		{name: "tui", override: "tui.notifications=true", warn: "-c tui.notifications=true: ignoring a Codex setting"},
		{name: "history in a profile", override: "profiles.p.history.persistence=none", warn: "profiles.p.history.persistence"},
		{name: "a typo in an interface key stays an error", override: "tiu.notifications=true", err: "unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(LoadOptions{Home: homeWith(t, ""), Overrides: []string{tc.override}})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Load = %v; want an error saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if !slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, tc.warn) }) {
				t.Fatalf("warnings %q; want one containing %q", c.Warnings, tc.warn)
			}
		})
	}
}

// A trusted project's .codex/config.toml loads as a project layer, under
// its .docket/config.toml, as Codex loads it for a trusted project (issue
// 30); an untrusted project's does not, and the warning names it; its
// .codex/rules are noted, not loaded.
func TestATrustedProjectsCodexConfigLoadsUnderItsDocketConfig(t *testing.T) {
	write := func(t *testing.T, path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name          string
		trusted       bool
		docket        string // .docket/config.toml, "" for none
		wantModel     string // "" when the project's model must not load
		wantVerbosity string
		modelFrom     string // the directory the model's source file is in
	}{
		{"trusted, .codex alone", true, "", "codex-model", "low", CodexProjectDir},
		{"trusted, .docket over .codex", true, "model = 'docket-model'\n", "docket-model", "low", ProjectDirName},
		{"untrusted", false, "", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, CodexProjectDir, FileName), "model = 'codex-model'\nmodel_verbosity = 'low'\n")
			write(t, filepath.Join(dir, CodexProjectDir, "rules", "p.rules"), "")
			if tc.docket != "" {
				write(t, filepath.Join(dir, ProjectDirName, FileName), tc.docket)
			}
			projects := ""
			if tc.trusted {
				projects = "[projects.'" + dir + "']\ntrust_level = 'trusted'\n"
			}
			c := mustLoad(t, LoadOptions{Home: homeWith(t, projects), Cwd: dir})
			if tc.wantModel == "" && c.Model == "codex-model" {
				t.Error("an untrusted project's .codex/config.toml was loaded")
			}
			if tc.wantModel != "" && c.Model != tc.wantModel || c.ModelVerbosity != tc.wantVerbosity {
				t.Errorf("model %q, verbosity %q; want %q, %q", c.Model, c.ModelVerbosity, tc.wantModel, tc.wantVerbosity)
			}
			if tc.trusted {
				src := c.Sources["model"]
				if src.Layer != LayerProject || src.File != filepath.Join(dir, tc.modelFrom, FileName) {
					t.Errorf("model's source %+v, want the project layer's %s", src, filepath.Join(dir, tc.modelFrom, FileName))
				}
			} else if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], filepath.Join(dir, CodexProjectDir, FileName)) {
				t.Errorf("warnings %q; want one naming the .codex/config.toml it did not load", c.Warnings)
			}
			rulesNote := false
			for _, n := range c.Notes {
				rulesNote = rulesNote || strings.Contains(n, filepath.Join(dir, CodexProjectDir, "rules")+", which Docket does not load")
			}
			if !rulesNote {
				t.Errorf("notes %q; want one saying .codex/rules is not loaded", c.Notes)
			}
		})
	}
}
