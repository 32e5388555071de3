package config

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
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
// or "" when it may. Names compare case-insensitively: the decoder gives
// a struct field a key of any case when none matches exactly, so
// "Endpoint" under [otel] sets the endpoint as "endpoint" does.
func refusedProjectKey(key []string) string {
	for _, r := range refusedProjectKeys() {
		if len(key) < len(r.path) {
			continue
		}
		match := true
		for i, p := range r.path {
			if p != "*" && !strings.EqualFold(p, key[i]) {
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
				Msg: fmt.Sprintf("a project's config cannot set %s: %s; take it out of this file, and set it in %s under Docket's home, or with -c, if you mean it", key, why, FileName)}
		}
	}
	return nil
}

// ProjectAddition is a hook, an MCP server, a notify program or an agent
// CLI a project layer configured: code that runs with the user's power,
// named at session start.
type ProjectAddition struct {
	// Kind is "hook", "mcp_server", "notify" (the program run at each
	// turn's end) or "agent" (an external agent CLI, run as the model by
	// model_provider = "agent:NAME" or by docket agents run).
	Kind string
	// Name is the MCP server's name, or the hook's stage and name (or
	// command when it has none).
	Name string
	// File is the project's config file.
	File string
}

func (a ProjectAddition) String() string {
	what := "MCP server"
	switch a.Kind {
	case "hook":
		what = "hook"
	case "notify":
		what = "notify program"
	case "agent":
		what = "agent CLI"
	}
	// The name and file are the project's text: one line each, escaped
	// (see HookReview.String).
	return fmt.Sprintf("%s %s (from %s)", what, safetext.Line(a.Name), safetext.Line(a.File))
}

// projectAdditions lists the hooks, MCP servers, notify program and agent
// CLIs a project layer's tree sets, in a stable order. Table names are found in any case, as the
// decoder finds them.
func projectAdditions(path string, t tree) []ProjectAddition {
	var out []ProjectAddition
	for _, n := range tableNames(t, "mcp_servers") {
		out = append(out, ProjectAddition{Kind: "mcp_server", Name: n, File: path})
	}
	for _, hv := range foldValues(t, "hooks") {
		hooks, ok := hv.(tree)
		if !ok {
			continue
		}
		for _, stage := range []string{"pre_tool", "post_tool"} {
			for _, lv := range foldValues(hooks, stage) {
				list, _ := lv.([]any)
				for i, h := range list {
					out = append(out, ProjectAddition{Kind: "hook", Name: hookName(stage, i, h), File: path})
				}
			}
		}
	}
	for _, nv := range foldValues(t, "notify") {
		if argv, ok := nv.([]any); ok && len(argv) > 0 {
			out = append(out, ProjectAddition{Kind: "notify", Name: fmt.Sprint(argv[0]), File: path})
		}
	}
	for _, n := range tableNames(t, "agents") {
		out = append(out, ProjectAddition{Kind: "agent", Name: n, File: path})
	}
	return out
}

// tableNames are the names of the tables under key (found in any case, as
// the decoder finds it), sorted, each once.
func tableNames(t tree, key string) []string {
	var names []string
	for _, v := range foldValues(t, key) {
		if tables, ok := v.(tree); ok {
			for n := range tables {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// hookName names the i'th hook of stage: its name, else its command.
func hookName(stage string, i int, h any) string {
	if ht, ok := h.(tree); ok {
		if n, ok := ht["name"].(string); ok && n != "" {
			return stage + " " + n
		} else if cmd, ok := ht["command"].([]any); ok && len(cmd) > 0 {
			return fmt.Sprintf("%s %v", stage, cmd[0])
		}
	}
	return fmt.Sprintf("%s #%d", stage, i+1)
}

// foldValues are t's values under keys equal to name in any case, in key
// order.
func foldValues(t tree, name string) []any {
	var keys []string
	for k := range t {
		if strings.EqualFold(k, name) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = t[k]
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

// withRunningHooks keeps of adds' hooks those that run (trusted by the
// user as they are): a hook waiting for review runs no code, and is named
// by the review's own warning instead.
func withRunningHooks(adds []ProjectAddition, reviews []HookReview) []ProjectAddition {
	out := slices.DeleteFunc(slices.Clone(adds), func(a ProjectAddition) bool { return a.Kind == "hook" })
	for _, r := range reviews {
		if r.File != "" && r.Status.Runs() {
			out = append(out, ProjectAddition{Kind: "hook", Name: r.Stage + " " + r.Name, File: r.File})
		}
	}
	return out
}
