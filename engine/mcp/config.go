package mcp

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Approval settings for a server's tools.
const (
	ApprovalAlways = "always"
	ApprovalNever  = "never"
	ApprovalAuto   = "auto"
)

// Defaults for the timeouts of ServerConfig.
const (
	DefaultStartupTimeout = 10 * time.Second
	DefaultToolTimeout    = 60 * time.Second
)

// ServerConfig is one [mcp_servers.NAME] table of the config file.
type ServerConfig struct {
	// Command is the program to run; a bare name is looked up in PATH.
	// ${VAR} expands in Command, Args, Env values and Cwd.
	Command string `toml:"command" json:"command"`
	// URL makes the server remote: Docket connects to it over MCP's
	// streamable HTTP transport instead of running Command. A server has
	// a Command or a URL, not both.
	URL string `toml:"url" json:"url,omitempty"`
	// BearerTokenEnvVar names the variable holding the token sent as
	// "Authorization: Bearer <token>" to a remote server.
	BearerTokenEnvVar string `toml:"bearer_token_env_var" json:"bearer_token_env_var,omitempty"`
	// HTTPHeaders are sent as they are with every request to a remote server.
	HTTPHeaders map[string]string `toml:"http_headers" json:"http_headers,omitempty"`
	// EnvHTTPHeaders map a header to the variable holding its value.
	EnvHTTPHeaders map[string]string `toml:"env_http_headers" json:"env_http_headers,omitempty"`
	// Args are its arguments.
	Args []string `toml:"args" json:"args,omitempty"`
	// Env is added to the server's environment, which otherwise inherits
	// only HOME, LOGNAME, PATH, SHELL, USER, LANG, LC_ALL, TERM, TMPDIR, TZ.
	Env map[string]string `toml:"env" json:"env,omitempty"`
	// Cwd is the server's working directory, relative to Options.Dir;
	// empty means Options.Dir itself.
	Cwd string `toml:"cwd" json:"cwd,omitempty"`
	// StartupTimeoutSec bounds spawning plus initialize plus tools/list (default 10).
	StartupTimeoutSec float64 `toml:"startup_timeout_sec" json:"startup_timeout_sec,omitempty"`
	// ToolTimeoutSec bounds each tool call (default 60).
	ToolTimeoutSec float64 `toml:"tool_timeout_sec" json:"tool_timeout_sec,omitempty"`
	// EnabledTools, when set, lists the only raw tool names offered to the model.
	EnabledTools []string `toml:"enabled_tools" json:"enabled_tools,omitempty"`
	// DisabledTools lists raw tool names never offered to the model.
	DisabledTools []string `toml:"disabled_tools" json:"disabled_tools,omitempty"`
	// SupportsParallelToolCalls lets calls to this server overlap; otherwise
	// the Manager runs them one at a time.
	SupportsParallelToolCalls bool `toml:"supports_parallel_tool_calls" json:"supports_parallel_tool_calls,omitempty"`
	// Approval is "always", "never" or "auto" (the default).
	Approval string `toml:"approval" json:"approval,omitempty"`
	// Sandbox starts the server itself under the Linux sandbox, with the
	// plan Options.SandboxPlan gives; when that cannot be had the server
	// fails to start rather than run unconfined.
	Sandbox bool `toml:"sandbox" json:"sandbox,omitempty"`
	// Enabled = false keeps the server configured but never started (default true).
	Enabled *bool `toml:"enabled" json:"enabled,omitempty"`
}

// StartupTimeout is the configured startup timeout, or the default.
func (c ServerConfig) StartupTimeout() time.Duration {
	return secondsOr(c.StartupTimeoutSec, DefaultStartupTimeout)
}

// ToolTimeout is the configured per-call timeout, or the default.
func (c ServerConfig) ToolTimeout() time.Duration {
	return secondsOr(c.ToolTimeoutSec, DefaultToolTimeout)
}

// ApprovalSetting is the configured approval, or "auto".
func (c ServerConfig) ApprovalSetting() string {
	if c.Approval == "" {
		return ApprovalAuto
	}
	return c.Approval
}

// IsEnabled reports whether the server should be started.
func (c ServerConfig) IsEnabled() bool { return c.Enabled == nil || *c.Enabled }

// Validate checks the config of the server called name; errors name the key
// as mcp_servers.NAME.KEY.
func (c ServerConfig) Validate(name string) error {
	key := func(k string) string { return fmt.Sprintf("mcp_servers.%s.%s", name, k) }
	if name == "" {
		return fmt.Errorf("mcp_servers: a server has an empty name: %w", ErrInvalidConfig)
	}
	if err := c.validateTransport(key); err != nil {
		return err
	}
	switch c.Approval {
	case "", ApprovalAlways, ApprovalNever, ApprovalAuto:
	default:
		return fmt.Errorf("%s: %q is not one of always, never, auto: %w", key("approval"), c.Approval, ErrInvalidConfig)
	}
	for _, t := range []struct {
		key string
		v   float64
	}{{"startup_timeout_sec", c.StartupTimeoutSec}, {"tool_timeout_sec", c.ToolTimeoutSec}} {
		if !(t.v >= 0 && t.v <= maxTimeoutSec) { // also rejects NaN
			return fmt.Errorf("%s: %v is not a number of seconds between 0 and %d: %w", key(t.key), t.v, maxTimeoutSec, ErrInvalidConfig)
		}
	}
	for i, t := range c.EnabledTools {
		if t == "" {
			return fmt.Errorf("%s[%d]: empty tool name: %w", key("enabled_tools"), i, ErrInvalidConfig)
		}
	}
	for i, t := range c.DisabledTools {
		if t == "" {
			return fmt.Errorf("%s[%d]: empty tool name: %w", key("disabled_tools"), i, ErrInvalidConfig)
		}
	}
	return nil
}

// Remote reports whether the server is reached over HTTP (URL) rather
// than run as a process.
func (c ServerConfig) Remote() bool { return c.URL != "" }

// validateTransport checks that the server is either local (Command) or
// remote (URL), with only the keys of its kind.
func (c ServerConfig) validateTransport(key func(string) string) error {
	switch {
	case c.Command == "" && c.URL == "":
		return fmt.Errorf("%s: missing (the program that runs the server, or url for a remote server): %w", key("command"), ErrInvalidConfig)
	case c.Command != "" && c.URL != "":
		return fmt.Errorf("%s: a server has a command or a url, not both: %w", key("url"), ErrInvalidConfig)
	case c.URL == "":
		if c.BearerTokenEnvVar != "" || len(c.HTTPHeaders) > 0 || len(c.EnvHTTPHeaders) > 0 {
			return fmt.Errorf("%s: bearer_token_env_var, http_headers and env_http_headers are for a remote server (url): %w", key("command"), ErrInvalidConfig)
		}
		return nil
	}
	if !httpURL(c.URL) {
		return fmt.Errorf("%s: %q is not an http(s) URL: %w", key("url"), c.URL, ErrInvalidConfig)
	}
	if len(c.Args) > 0 || len(c.Env) > 0 || c.Cwd != "" || c.Sandbox {
		return fmt.Errorf("%s: args, env, cwd and sandbox are for a local server (command): %w", key("url"), ErrInvalidConfig)
	}
	return nil
}

// httpURL reports whether s is an http(s) URL with a host; a URL with
// ${VAR} in it is checked for its scheme only, as it is expanded later.
func httpURL(s string) bool {
	if strings.Contains(s, "${") {
		l := strings.ToLower(s)
		return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// maxTimeoutSec keeps a typo from turning into a duration overflow.
const maxTimeoutSec = 7 * 24 * 3600

func secondsOr(sec float64, def time.Duration) time.Duration {
	if sec <= 0 {
		return def
	}
	return time.Duration(sec * float64(time.Second))
}

// allows reports whether the enabled/disabled filters let the raw tool name through.
func (c ServerConfig) allows(tool string) bool {
	if c.EnabledTools != nil && !slices.Contains(c.EnabledTools, tool) {
		return false
	}
	return !slices.Contains(c.DisabledTools, tool)
}
