package config

import (
	"bytes"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
	"github.com/pelletier/go-toml/v2"
)

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

// maxTimeoutSec keeps a typo in a timeout from becoming a duration
// overflow: a week.
const maxTimeoutSec = 7 * 24 * 3600

func lookup(t tree, key ...string) (any, bool) {
	var v any = t
	for _, k := range key {
		m, ok := v.(tree)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func sortedNames(t tree) []string {
	names := make([]string, 0, len(t))
	for k := range t {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// checkValues validates the spellings and ranges of the keys one layer sets.
// Types were checked when the layer was decoded.
func checkValues(t tree, w where) error {
	enum := func(key []string, what string, valid []string) error {
		v, ok := lookup(t, key...)
		if !ok {
			return nil
		}
		s, _ := v.(string)
		if slices.Contains(valid, s) {
			return nil
		}
		return w.errorf(key, policy.Nearest(s, valid), "%s", notOneOf(s, what, valid))
	}
	nonNegative := func(key []string) error {
		v, ok := lookup(t, key...)
		if !ok {
			return nil
		}
		if f, ok := toFloat(v); ok && f < 0 {
			return w.errorf(key, "", "%v is negative", v)
		}
		return nil
	}
	if err := enum([]string{"approval_policy"}, "approval policy", Policies()); err != nil {
		return err
	}
	if err := enum([]string{"sandbox_mode"}, "sandbox mode", Modes()); err != nil {
		return err
	}
	for _, e := range []struct {
		key   []string
		what  string
		valid []string
	}{
		{[]string{"model_reasoning_effort"}, "reasoning effort", reasoningEfforts()},
		{[]string{"model_reasoning_summary"}, "reasoning summary", reasoningSummaries()},
		{[]string{"model_verbosity"}, "verbosity", verbosities()},
		{[]string{"shell_environment_policy", "inherit"}, "inherit value", inheritValues()},
	} {
		if err := enum(e.key, e.what, e.valid); err != nil {
			return err
		}
	}
	for _, k := range []string{"exclude", "include_only"} {
		v, _ := lookup(t, "shell_environment_policy", k)
		list, _ := v.([]any)
		for _, p := range list {
			if s, _ := p.(string); badPattern([]string{s}) != "" {
				return w.errorf([]string{"shell_environment_policy", k}, "", "%q is not a valid pattern (* and ? match any characters)", s)
			}
		}
	}
	if v, ok := lookup(t, "notify"); ok {
		if list, _ := v.([]any); len(list) > 0 {
			if s, _ := list[0].(string); s == "" {
				return w.errorf([]string{"notify"}, "", "the first element is the program to run; it is empty")
			}
		}
	}
	projects, _ := lookup(t, "projects")
	prt, _ := projects.(tree)
	for _, name := range sortedNames(prt) {
		if !filepath.IsAbs(name) {
			return w.errorf([]string{"projects", name}, "", "%q is not an absolute path", name)
		}
		if err := enum([]string{"projects", name, "trust_level"}, "trust level", trustLevels()); err != nil {
			return err
		}
	}
	if v, ok := lookup(t, "model_provider"); ok && v == "" {
		return w.errorf([]string{"model_provider"}, "", "empty provider name")
	}
	for _, k := range []string{"tool_output_max_bytes", "approval_timeout_sec", "project_doc_max_bytes",
		"model_context_window", "model_auto_compact_token_limit"} {
		if err := nonNegative([]string{k}); err != nil {
			return err
		}
	}
	for _, k := range []string{"max_processes", "max_memory_mb", "max_cpu_seconds", "max_file_size_mb"} {
		if err := nonNegative([]string{"sandbox", k}); err != nil {
			return err
		}
	}
	for _, k := range []string{"max_depth", "max_children"} {
		if err := nonNegative([]string{"subagents", k}); err != nil {
			return err
		}
	}
	providers, _ := lookup(t, "model_providers")
	pt, _ := providers.(tree)
	for _, name := range sortedNames(pt) {
		if name == ProviderScript {
			return w.errorf([]string{"model_providers", name}, "", "the name %q is reserved for the scripted model provider", name)
		}
		p := func(k string) []string { return []string{"model_providers", name, k} }
		if err := enum(p("wire_api"), "wire API", wireAPIs()); err != nil {
			return err
		}
		for _, k := range []string{"request_max_retries", "stream_idle_timeout_ms", "stream_max_retries"} {
			if err := nonNegative(p(k)); err != nil {
				return err
			}
		}
	}
	if err := checkAgentValues(t, w, enum); err != nil {
		return err
	}
	servers, _ := lookup(t, "mcp_servers")
	st, _ := servers.(tree)
	for _, name := range sortedNames(st) {
		s := func(k string) []string { return []string{"mcp_servers", name, k} }
		if err := enum(s("approval"), "MCP approval setting", mcpApprovals()); err != nil {
			return err
		}
		for _, k := range []string{"startup_timeout_sec", "tool_timeout_sec"} {
			v, ok := lookup(t, s(k)...)
			if !ok {
				continue
			}
			if f, _ := toFloat(v); !(f >= 0 && f <= maxTimeoutSec) || math.IsNaN(f) {
				return w.errorf(s(k), "", "%v is not a number of seconds between 0 and %d", v, maxTimeoutSec)
			}
		}
	}
	return nil
}

// checkMerged validates what only the whole configuration can tell: that
// the selected provider exists and that tables are complete.
func checkMerged(c *Config) error {
	at := func(key ...string) Source {
		s, _ := c.Sources.Of(joinKey(key))
		return s
	}
	if name, ok := strings.CutPrefix(c.ModelProvider, AgentProviderPrefix); ok {
		if err := checkAgentProvider(c, name, at); err != nil {
			return err
		}
	} else if c.ModelProvider != ProviderScript {
		if _, ok := c.ModelProviders[c.ModelProvider]; !ok {
			names := []string{ProviderScript}
			for n := range c.ModelProviders {
				names = append(names, n)
			}
			sort.Strings(names)
			s := policy.Nearest(c.ModelProvider, names)
			return at("model_provider").errorf([]string{"model_provider"}, s, "%s", notOneOf(c.ModelProvider, "model provider", names))
		}
	} else if c.ModelScript == "" {
		return at("model_provider").errorf([]string{"model_provider"}, "", "the script provider needs model_script (or --model-script FILE)")
	}
	for _, name := range slicesSortedKeys(c.ModelProviders) {
		if c.ModelProviders[name].BaseURL == "" {
			key := []string{"model_providers", name}
			return at(key...).errorf(key, "", "base_url is missing")
		}
	}
	for _, name := range slicesSortedKeys(c.Agents) {
		if c.Agents[name].Command == "" {
			key := []string{"agents", name, "command"}
			return at("agents", name).errorf(key, "", "missing (the agent CLI to run, e.g. \"claude\")")
		}
	}
	for _, name := range slicesSortedKeys(c.MCPServers) {
		if err := checkMCPServer(name, c.MCPServers[name], at); err != nil {
			return err
		}
	}
	if err := checkHooks(c); err != nil {
		return err
	}
	return checkOTel(c)
}

// checkMCPServer checks that a server is either local (command) or remote
// (url), with only the keys of its kind.
func checkMCPServer(name string, s MCPServer, at func(key ...string) Source) error {
	key := []string{"mcp_servers", name}
	k := func(sub string) []string { return append(append([]string(nil), key...), sub) }
	switch {
	case s.Command == "" && s.URL == "":
		return at(key...).errorf(k("command"), "", "missing (the program that runs the server, or url for a remote server)")
	case s.Command != "" && s.URL != "":
		return at(k("url")...).errorf(k("url"), "", "a server has a command or a url, not both")
	case s.URL != "":
		if !httpURL(s.URL) {
			return at(k("url")...).errorf(k("url"), "", "%q is not an http(s) URL", s.URL)
		}
		local := map[string]bool{"args": len(s.Args) > 0, "env": len(s.Env) > 0, "cwd": s.Cwd != "", "sandbox": s.Sandbox}
		for _, sub := range []string{"args", "env", "cwd", "sandbox"} {
			if local[sub] {
				return at(k(sub)...).errorf(k(sub), "", "only a local server (command) has %s; this one has a url", sub)
			}
		}
	default:
		remote := map[string]bool{"bearer_token_env_var": s.BearerTokenEnvVar != "", "http_headers": len(s.HTTPHeaders) > 0, "env_http_headers": len(s.EnvHTTPHeaders) > 0}
		for _, sub := range []string{"bearer_token_env_var", "http_headers", "env_http_headers"} {
			if remote[sub] {
				return at(k(sub)...).errorf(k(sub), "", "only a remote server (url) has %s; this one has a command", sub)
			}
		}
	}
	return nil
}

func slicesSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// redacted reports whether a setting's value is kept out of the journal:
// server environments and headers, and variables the shell environment
// policy sets, are often credentials.
func redacted(key []string) bool {
	switch {
	case len(key) == 4 && key[0] == "mcp_servers":
		return key[2] == "env" || key[2] == "http_headers"
	case len(key) == 4 && key[0] == "agents":
		return key[2] == "env"
	case len(key) == 3 && key[0] == "shell_environment_policy":
		return key[1] == "set"
	case len(key) == 3 && key[0] == "otel":
		return key[1] == "headers"
	case len(key) >= 4 && key[0] == "otel":
		// Codex's exporter tables: otel.exporter.otlp-http.headers.NAME.
		return key[len(key)-2] == "headers"
	case len(key) == 4 && key[0] == "model_providers":
		// A header or query parameter may be the credential itself.
		return key[2] == "http_headers" || key[2] == "query_params"
	}
	return false
}

// settingsOf renders the merged tree as sorted settings, values as TOML.
func settingsOf(t tree) ([]events.Setting, error) {
	var out []events.Setting
	for _, l := range leaves(t) {
		v := l.value
		if redacted(l.key) {
			v = "(redacted)"
		}
		// Tables inside arrays ([[hooks.pre_tool]]) render inline, so each
		// setting stays one "key = value" line.
		var buf bytes.Buffer
		enc := toml.NewEncoder(&buf)
		enc.SetTablesInline(true)
		err := enc.Encode(tree{"v": v})
		b := buf.Bytes()
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", joinKey(l.key), err)
		}
		text := strings.TrimSuffix(strings.TrimPrefix(string(b), "v = "), "\n")
		out = append(out, events.Setting{Key: joinKey(l.key), Value: text})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}
