package config

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
	"github.com/pelletier/go-toml/v2"
)

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
	if v, ok := lookup(t, "model_provider"); ok && v == "" {
		return w.errorf([]string{"model_provider"}, "", "empty provider name")
	}
	for _, k := range []string{"tool_output_max_bytes", "approval_timeout_sec", "project_doc_max_bytes"} {
		if err := nonNegative([]string{k}); err != nil {
			return err
		}
	}
	for _, k := range []string{"max_processes", "max_memory_mb", "max_cpu_seconds", "max_file_size_mb"} {
		if err := nonNegative([]string{"sandbox", k}); err != nil {
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
		for _, k := range []string{"request_max_retries", "stream_idle_timeout_ms"} {
			if err := nonNegative(p(k)); err != nil {
				return err
			}
		}
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
	if c.ModelProvider != ProviderScript {
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
	for _, name := range slicesSortedKeys(c.MCPServers) {
		if c.MCPServers[name].Command == "" {
			key := []string{"mcp_servers", name}
			return at(key...).errorf(append(key, "command"), "", "missing (the program that runs the server)")
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

// settingsOf renders the merged tree as sorted settings, values as TOML.
func settingsOf(t tree) ([]events.Setting, error) {
	var out []events.Setting
	for _, l := range leaves(t) {
		v := l.value
		if len(l.key) == 4 && l.key[0] == "mcp_servers" && l.key[2] == "env" {
			v = "(redacted)"
		}
		b, err := toml.Marshal(tree{"v": v})
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", joinKey(l.key), err)
		}
		text := strings.TrimSuffix(strings.TrimPrefix(string(b), "v = "), "\n")
		out = append(out, events.Setting{Key: joinKey(l.key), Value: text})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}
