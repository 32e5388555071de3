package config

import (
	"time"

	"github.com/docket-engine/docket/engine/ctxwindow"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/permissions"
)

// Config is the effective configuration after every layer is applied.
// The toml-tagged fields are the keys of CLI.md; the rest are resolved by
// Load from outside the TOML layers.
type Config struct {
	Model         string `toml:"model"`
	ModelProvider string `toml:"model_provider"`
	ModelScript   string `toml:"model_script"`
	// ModelCatalogJSON is Codex's model catalogue file: which shell and
	// apply_patch tools each model is offered (engine.Catalog).
	ModelCatalogJSON           string                   `toml:"model_catalog_json"`
	ApprovalPolicy             string                   `toml:"approval_policy"`
	SandboxMode                string                   `toml:"sandbox_mode"`
	SandboxWorkspaceWrite      WorkspaceWrite           `toml:"sandbox_workspace_write"`
	Sandbox                    SandboxOptions           `toml:"sandbox"`
	ModelProviders             map[string]ModelProvider `toml:"model_providers"`
	MCPServers                 map[string]MCPServer     `toml:"mcp_servers"`
	Agents                     map[string]Agent         `toml:"agents"`
	ToolOutputMaxBytes         int64                    `toml:"tool_output_max_bytes"`
	ApprovalTimeoutSec         int64                    `toml:"approval_timeout_sec"`
	ProjectDocMaxBytes         int64                    `toml:"project_doc_max_bytes"`
	ExperimentalRiskAssessment bool                     `toml:"experimental_risk_assessment"`
	Subagents                  SubagentOptions          `toml:"subagents"`

	// Codex keys Docket implements (see docs/decisions.md, "Codex config").
	ModelReasoningEffort   string         `toml:"model_reasoning_effort"`
	ModelReasoningSummary  string         `toml:"model_reasoning_summary"`
	ModelVerbosity         string         `toml:"model_verbosity"`
	Notify                 []string       `toml:"notify"`
	ShellEnvironmentPolicy ShellEnvPolicy `toml:"shell_environment_policy"`
	// HookEnvironmentPolicy is shell_environment_policy as the user's own
	// layers set it, a project's left out: hooks run as the user, often
	// outside the sandbox, so a project must not choose their PATH (which
	// program a hook's bare name runs) or BASH_ENV, LD_PRELOAD and the
	// like (code run before the hook's own).
	HookEnvironmentPolicy ShellEnvPolicy     `toml:"-"`
	Projects              map[string]Project `toml:"projects"`
	// ModelContextWindow overrides the model's context window in tokens
	// (0: Docket's table of known models); ModelAutoCompactTokenLimit is
	// the context size at which the conversation is compacted
	// automatically (0: ctxwindow.AutoCompactFraction of the window).
	ModelContextWindow         int64 `toml:"model_context_window"`
	ModelAutoCompactTokenLimit int64 `toml:"model_auto_compact_token_limit"`

	// DefaultPermissions names the permission profile (Codex's
	// default_permissions); Permissions are the [permissions.NAME] tables.
	DefaultPermissions string                         `toml:"default_permissions"`
	Permissions        map[string]permissions.Profile `toml:"permissions"`
	// CodexExtras are Codex 0.171's keys Docket implements (codex_keys.go).
	CodexExtras

	// ProjectAdditions are the hooks, MCP servers, notify program and agent
	// CLIs a trusted project's config sets (named at session start, kept
	// in the session record).
	ProjectAdditions []ProjectAddition `toml:"-"`
	// Hooks are the operator's pre_tool and post_tool hooks: those that
	// run, without a project's hooks the user has not trusted.
	Hooks HooksConfig `toml:"hooks"`
	// HookReviews are every configured hook, with where it came from and
	// whether it runs (hooktrust.go).
	HookReviews []HookReview `toml:"-"`
	// CodexHooks are the Codex hook handlers ([[hooks.PreToolUse]]...)
	// of the config files read: those that became Docket hooks, and those
	// Docket does not run, with why (codex_hooks.go).
	CodexHooks []CodexHook `toml:"-"`
	// OTel configures the OpenTelemetry export.
	OTel OTel `toml:"otel"`

	// Home is Docket's home: --home, else $DOCKET_HOME, else ~/.docket.
	Home string `toml:"-"`
	// File is the config file consulted (it may not exist).
	File string `toml:"-"`
	// Profile is the selected profile, or "".
	Profile string `toml:"-"`
	// APIKey is the selected provider's key, read from its env_key variable.
	APIKey string `toml:"-"`
	// APIKeyEnv names the variable APIKey was read from.
	APIKeyEnv string `toml:"-"`
	// Tmpdir is $TMPDIR, for the workspace-write sandbox's writable roots.
	Tmpdir string `toml:"-"`
	// Sources says, for every leaf key, which layer set it.
	Sources Sources `toml:"-"`
	// ProjectDir is the workspace the project layer and trust were looked
	// up for ("" when Load was given none); Trust is what [projects] says
	// of it.
	ProjectDir string `toml:"-"`
	Trust      Trust  `toml:"-"`
	// Warnings are said on stderr by every command: an untrusted
	// project's files that were not loaded, a -c Docket ignores.
	Warnings []string `toml:"-"`
	// Notes are said once per Docket home (and again only when their text
	// changes): the Codex keys of a file Docket has no use for, the Codex
	// home read for want of a Docket one.
	Notes []string `toml:"-"`
	// ConfigHome is the folder of the config file read: Docket's home, or
	// the Codex home read in its place. Its rules/ and AGENTS.md apply.
	ConfigHome string `toml:"-"`
	// CodexHome is the Codex home read for want of a Docket config, or "".
	CodexHome string `toml:"-"`
	// catalog is model_catalog_json's context windows by model slug.
	catalog map[string]int64

	// PermissionsSelection says whether a permission profile or the
	// legacy sandbox_mode keys are in force, and why; PermissionProfile is
	// the profile resolved, nil under the legacy keys.
	PermissionsSelection PermissionsSelection  `toml:"-"`
	PermissionProfile    *permissions.Resolved `toml:"-"`
	// Egress says the profile's network goes through the egress proxy
	// (only when LoadOptions.Egress allowed it).
	Egress bool `toml:"-"`
	// Requirements are the managed requirements files that were found.
	Requirements []permissions.Requirement `toml:"-"`

	settings []events.Setting
}

// WorkspaceWrite is the [sandbox_workspace_write] table.
type WorkspaceWrite struct {
	WritableRoots       []string `toml:"writable_roots"`
	NetworkAccess       bool     `toml:"network_access"`
	ExcludeTmpdirEnvVar bool     `toml:"exclude_tmpdir_env_var"`
	ExcludeSlashTmp     bool     `toml:"exclude_slash_tmp"`
}

// SandboxOptions is the [sandbox] table.
type SandboxOptions struct {
	RequireProtectedPaths bool `toml:"require_protected_paths"`
	// Resource limits of every sandboxed call; 0 means no limit of that kind.
	MaxProcesses  int64 `toml:"max_processes"`
	MaxMemoryMB   int64 `toml:"max_memory_mb"`
	MaxCPUSeconds int64 `toml:"max_cpu_seconds"`
	MaxFileSizeMB int64 `toml:"max_file_size_mb"`
}

// SubagentOptions is [subagents]: whether the model is offered spawn_agent,
// and the bounds on the tree it may grow (0: the engine's defaults,
// engine.DefaultAgentMaxDepth and engine.DefaultAgentMaxChildren).
type SubagentOptions struct {
	Enabled     bool  `toml:"enabled"`
	MaxDepth    int64 `toml:"max_depth"`
	MaxChildren int64 `toml:"max_children"`
}

// Limits returns the [sandbox] resource limits as a plan carries them.
func (o SandboxOptions) Limits() events.ResourceLimits {
	return events.ResourceLimits{MaxProcesses: o.MaxProcesses, MaxMemoryMB: o.MaxMemoryMB,
		MaxCPUSeconds: o.MaxCPUSeconds, MaxFileSizeMB: o.MaxFileSizeMB}
}

// ModelProvider is one [model_providers.NAME] table.
type ModelProvider struct {
	// Name is the provider's display name (Codex's `name`).
	Name                string `toml:"name"`
	BaseURL             string `toml:"base_url"`
	EnvKey              string `toml:"env_key"`
	WireAPI             string `toml:"wire_api"`
	RequestMaxRetries   int64  `toml:"request_max_retries"`
	StreamIdleTimeoutMs int64  `toml:"stream_idle_timeout_ms"`
	// StreamMaxRetries is how often a stream that broke after the request
	// was accepted is retried; unset, request_max_retries counts for both.
	StreamMaxRetries *int64 `toml:"stream_max_retries"`
	// HTTPHeaders are sent with every request; EnvHTTPHeaders map a header
	// to the variable holding its value (sent when the variable is set).
	HTTPHeaders    map[string]string `toml:"http_headers"`
	EnvHTTPHeaders map[string]string `toml:"env_http_headers"`
	// QueryParams are added to every request's URL (Azure's api-version).
	QueryParams map[string]string `toml:"query_params"`
}

// MCPServer is one [mcp_servers.NAME] table, with engine/mcp's keys.
type MCPServer struct {
	Command                   string            `toml:"command"`
	URL                       string            `toml:"url"`
	BearerTokenEnvVar         string            `toml:"bearer_token_env_var"`
	HTTPHeaders               map[string]string `toml:"http_headers"`
	EnvHTTPHeaders            map[string]string `toml:"env_http_headers"`
	Args                      []string          `toml:"args"`
	Env                       map[string]string `toml:"env"`
	Cwd                       string            `toml:"cwd"`
	StartupTimeoutSec         float64           `toml:"startup_timeout_sec"`
	ToolTimeoutSec            float64           `toml:"tool_timeout_sec"`
	EnabledTools              []string          `toml:"enabled_tools"`
	DisabledTools             []string          `toml:"disabled_tools"`
	SupportsParallelToolCalls bool              `toml:"supports_parallel_tool_calls"`
	Approval                  string            `toml:"approval"`
	Sandbox                   bool              `toml:"sandbox"`
	Enabled                   *bool             `toml:"enabled"`
}

// Agent is one [agents.NAME] table: an external agent CLI that
// `docket agents run` starts, or that model_provider = "agent:NAME" uses.
type Agent struct {
	// Command is the program (claude, gemini, codex, a path).
	Command string `toml:"command"`
	// Args are its arguments; "{prompt}" in one is replaced by the prompt,
	// else the prompt is the last argument.
	Args []string `toml:"args"`
	// Env is added to the agent's environment (kept even when a name looks
	// secret); only the names are journaled.
	Env map[string]string `toml:"env"`
	// TimeoutSec is the agent's deadline; 0 means the default (300 s).
	TimeoutSec float64 `toml:"timeout_sec"`
	// Format is how its stdout is read: text, stream-json or codex-jsonl.
	Format string `toml:"format"`
}

// fileDoc is the schema of config.toml: the keys plus named profiles, each
// of which may set any key but profiles.
type fileDoc struct {
	Config
	// Profile selects the profile used when --profile is not given.
	Profile  string            `toml:"profile"`
	Profiles map[string]Config `toml:"profiles"`
}

// Provider returns the settings of the selected model provider; the
// scripted provider has none.
func (c *Config) Provider() ModelProvider { return c.ModelProviders[c.ModelProvider] }

// ApprovalTimeout is approval_timeout_sec as a duration; zero means none.
func (c *Config) ApprovalTimeout() time.Duration {
	return time.Duration(c.ApprovalTimeoutSec) * time.Second
}

// Settings returns the effective configuration as a sorted key/value
// snapshot (values as TOML text) for the session_started record. Values of
// mcp_servers.*.env are redacted: they are often credentials.
func (c *Config) Settings() []events.Setting {
	return append([]events.Setting(nil), c.settings...)
}

// SessionConfig returns the decision-relevant part of the configuration,
// as the engine records it.
func (c *Config) SessionConfig() events.SessionConfig {
	ww := c.SandboxWorkspaceWrite
	return events.SessionConfig{
		ApprovalPolicy:        c.ApprovalPolicy,
		SandboxMode:           c.SandboxMode,
		WritableRoots:         append([]string(nil), ww.WritableRoots...),
		NetworkAccess:         ww.NetworkAccess,
		ExcludeTmpdirEnvVar:   ww.ExcludeTmpdirEnvVar,
		ExcludeSlashTmp:       ww.ExcludeSlashTmp,
		TmpdirEnv:             c.Tmpdir,
		RequireProtectedPaths: c.Sandbox.RequireProtectedPaths,
		Model:                 c.Model,
		ModelProvider:         c.ModelProvider,
		ToolOutputMaxBytes:    c.ToolOutputMaxBytes,
		ApprovalTimeoutSec:    c.ApprovalTimeoutSec,
		ContextWindow:         c.ContextWindow(),
		AutoCompactTokenLimit: c.AutoCompactTokenLimit(),
		SubagentMaxDepth:      int(c.Subagents.MaxDepth),
		SubagentMaxChildren:   int(c.Subagents.MaxChildren),
	}
}

// ContextWindow is the model's context window in tokens: the configured
// model_context_window, else Docket's table; 0 when neither knows it.
func (c *Config) ContextWindow() int64 {
	if c.ModelContextWindow == 0 && c.catalog[c.Model] > 0 {
		return c.catalog[c.Model]
	}
	return ctxwindow.Window(c.Model, c.ModelContextWindow)
}

// AutoCompactTokenLimit is the context size at which the engine compacts
// automatically: model_auto_compact_token_limit, else 90% of a known
// window; 0 (never) for a model of unknown window.
func (c *Config) AutoCompactTokenLimit() int64 {
	if c.ModelAutoCompactTokenLimit > 0 {
		return c.ModelAutoCompactTokenLimit
	}
	return ctxwindow.DefaultAutoCompactLimit(c.ContextWindow())
}

// ProviderDisplayName is the selected provider's display name (its
// `name` key), else its table name.
func (c *Config) ProviderDisplayName() string {
	if n := c.ModelProviders[c.ModelProvider].Name; n != "" {
		return n
	}
	return c.ModelProvider
}
