package config

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/docket-engine/docket/events"
)

// A trusted project's config (.codex/config.toml, .docket/config.toml) is
// text anyone who can push to the repository wrote. Codex loads it with
// the user's own power; Docket refuses from it what would send the user's
// credentials or data to a server the project chose, and names what it
// adds that runs code (hooks, MCP servers), so that the user sees it at
// every session start and the journal keeps it.

// refusedProjectKey is a key path a project layer may not set, "*"
// matching any one key, with why.
type refusedKey struct {
	path []string
	why  string
}

// refusedProjectKeys lists them.
func refusedProjectKeys() []refusedKey {
	return []refusedKey{
		{[]string{"model_providers", "*", "base_url"}, "it would send your requests and API key to a server the project chose"},
		{[]string{"model_providers", "*", "env_key"}, "it would send the value of an environment variable of yours as the API key"},
		{[]string{"model_providers", "*", "env_http_headers"}, "it would send values of your environment variables as request headers"},
		{[]string{"mcp_servers", "*", "bearer_token_env_var"}, "it would send the value of an environment variable of yours to an MCP server"},
		{[]string{"mcp_servers", "*", "env_http_headers"}, "it would send values of your environment variables to an MCP server"},
		{[]string{"otel", "endpoint"}, "it would export your sessions' traces to a collector the project chose"},
		{[]string{"otel", "exporter"}, "it would export your sessions' telemetry to a collector the project chose"},
		{[]string{"otel", "trace_exporter"}, "it would export your sessions' traces to a collector the project chose"},
		{[]string{"otel", "headers"}, "it would set the headers your telemetry export sends"},
	}
}

// refusedProjectKey returns why key may not come from a project layer,
// or "" when it may.
func refusedProjectKey(key []string) string {
	for _, r := range refusedProjectKeys() {
		if len(key) < len(r.path) {
			continue
		}
		match := true
		for i, p := range r.path {
			if p != "*" && p != key[i] {
				match = false
				break
			}
		}
		if match {
			return r.why
		}
	}
	return ""
}

// checkProjectPower refuses a project layer that sets a refused key,
// naming the file, the line and the key.
func checkProjectPower(path string, t tree, w where) error {
	for _, l := range leaves(t) {
		if why := refusedProjectKey(l.key); why != "" {
			key := joinKey(l.key)
			return &Error{Source: path, Line: w.line(l.key), Key: key,
				Msg: fmt.Sprintf("a project's config cannot set %s: %s; set it in %s under Docket's home, or with -c, if you mean it", key, why, FileName)}
		}
	}
	return nil
}

// ProjectAddition is a hook or an MCP server a project layer configured:
// code that runs with the user's power, named at session start.
type ProjectAddition struct {
	// Kind is "hook" or "mcp_server".
	Kind string
	// Name is the MCP server's name, or the hook's stage and name (or
	// command when it has none).
	Name string
	// File is the project's config file.
	File string
}

func (a ProjectAddition) String() string {
	what := "MCP server"
	if a.Kind == "hook" {
		what = "hook"
	}
	return fmt.Sprintf("%s %s (from %s)", what, a.Name, a.File)
}

// projectAdditions lists the hooks and MCP servers a project layer's
// tree sets, in a stable order.
func projectAdditions(path string, t tree) []ProjectAddition {
	var out []ProjectAddition
	if servers, ok := t["mcp_servers"].(tree); ok {
		names := make([]string, 0, len(servers))
		for n := range servers {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, ProjectAddition{Kind: "mcp_server", Name: n, File: path})
		}
	}
	if hooks, ok := t["hooks"].(tree); ok {
		for _, stage := range []string{"pre_tool", "post_tool"} {
			list, _ := hooks[stage].([]any)
			for i, h := range list {
				name := fmt.Sprintf("%s #%d", stage, i+1)
				if ht, ok := h.(tree); ok {
					if n, ok := ht["name"].(string); ok && n != "" {
						name = stage + " " + n
					} else if cmd, ok := ht["command"].([]any); ok && len(cmd) > 0 {
						name = fmt.Sprintf("%s %v", stage, cmd[0])
					}
				}
				out = append(out, ProjectAddition{Kind: "hook", Name: name, File: path})
			}
		}
	}
	return out
}

// ProjectAdditionsSetting is the session record's setting listing what a
// project layer added (ProjectAdditions), one per line.
const ProjectAdditionsSetting = "docket.project_additions"

// projectAdditionsWarning says at session start what the project's
// config adds that runs code.
func projectAdditionsWarning(adds []ProjectAddition) string {
	if len(adds) == 0 {
		return ""
	}
	names := make([]string, len(adds))
	for i, a := range adds {
		names[i] = a.String()
	}
	return "this trusted project's config adds code that runs as you: " + strings.Join(names, "; ")
}

// ProjectAdditionsRecord is the setting the session record keeps for
// adds; false when there are none.
func ProjectAdditionsRecord(adds []ProjectAddition) (events.Setting, bool) {
	if len(adds) == 0 {
		return events.Setting{}, false
	}
	names := make([]string, len(adds))
	for i, a := range adds {
		names[i] = a.String()
	}
	return events.Setting{Key: ProjectAdditionsSetting, Value: strings.Join(slices.Compact(names), "\n")}, true
}
