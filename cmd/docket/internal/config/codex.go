package config

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/docket-engine/docket/states/policy"
)

// ignoredCodexKey reports whether a key of a Codex config.toml only changes
// Codex's own interface (or names Codex feature flags, or switches on what
// Docket always does): Docket accepts it
// and says once that it ignores it. key is relative to the document, with
// a profile's "profiles.NAME" prefix removed; any key under a listed
// table is ignored with it.
func ignoredCodexKey(key []string) bool {
	if slices.Contains(ignoredTopKeys(), key[0]) {
		return true
	}
	// A provider's env_key_instructions is the text Codex shows when the
	// key is missing; Docket's own error names the variable.
	return len(key) == 3 && key[0] == "model_providers" && key[2] == "env_key_instructions"
}

// unsupportedCodexKey returns why Docket rejects a key that Codex has,
// or "" for a key Codex does not have either.
func unsupportedCodexKey(key []string) string {
	last := key[len(key)-1]
	switch {
	case len(key) == 1:
		switch last {
		case "instructions", "developer_instructions", "experimental_instructions_file", "model_instructions_file":
			return "Docket builds its instructions from AGENTS.md files (project_doc_max_bytes caps them)"
		case "tools":
			return "Docket's tools are shell, apply_patch and the configured MCP servers' tools"
		case "chatgpt_base_url", "preferred_auth_method", "forced_login_method", "forced_chatgpt_workspace_id", "cli_auth_credentials_store":
			return "Docket logs in with `docket login` (device code) or the provider's env_key"
		}
	case len(key) >= 2 && key[0] == "otel":
		switch key[1] {
		case "exporter", "trace_exporter":
			return "Docket's [otel] takes endpoint, protocol (grpc or http/protobuf) and headers directly (docs/cli.md)"
		case "environment", "log_user_prompt":
			return "Docket exports spans of turns and tool calls, never prompts; set OTEL_RESOURCE_ATTRIBUTES=deployment.environment=NAME for the environment"
		}
	case len(key) == 3 && key[0] == "mcp_servers":
		switch last {
		case "env_vars":
			return `forward a variable by name with env = { NAME = "${NAME}" }`
		case "startup_timeout_ms":
			return "use startup_timeout_sec"
		}
	case len(key) == 3 && key[0] == "model_providers":
		switch last {
		case "stream_max_retries":
			return "Docket retries a broken stream as a new request: use request_max_retries"
		case "http_headers", "env_http_headers", "query_params":
			return "Docket sends no extra headers or query parameters to a model provider"
		}
	}
	return ""
}

// ignoredTopKeys are the top-level keys and tables ignoredCodexKey accepts.
func ignoredTopKeys() []string {
	return []string{"file_opener", "hide_agent_reasoning", "show_raw_agent_reasoning", "history", "tui",
		"features", "notice", "check_for_update_on_startup", "disable_paste_burst",
		"windows_wsl_setup_acknowledged", "model_reasoning_summary_format",
		// Codex's switch for its HTTP MCP client; Docket's is always on.
		"experimental_use_rmcp_client"}
}

// ignoredOverride returns the warning for a -c that sets one of Codex's
// interface keys (tui.*, history.*, ...), which a file may carry too: a
// Codex user's alias or script passing -c tui.notifications=true must not
// make docket refuse to start. "" for every other -c, which is checked as
// usual.
func ignoredOverride(text string) string {
	o, err := ParseOverride(text)
	if err != nil {
		return ""
	}
	rel := o.Key
	if len(rel) > 2 && rel[0] == "profiles" {
		rel = rel[2:]
	}
	if !ignoredCodexKey(rel) {
		return ""
	}
	return fmt.Sprintf("-c %s: ignoring a Codex setting for Codex's own interface and feature flags: %s", text, joinKey(o.Key))
}

// ignoredKey is one ignored Codex key (or table) and where it was written.
type ignoredKey struct {
	key  []string
	name string
	line int
}

// unknownKeys sorts the keys a strict decode of the file at path did not
// know: Codex's UI-only keys are returned to be warned about once; every
// other key is an *Error naming its line, with the nearest valid spelling.
func unknownKeys(path string, doc tree, sm *toml.StrictMissingError) ([]ignoredKey, Errors) {
	var ignored []ignoredKey
	var errs Errors
	seen := map[string]bool{}
	for _, de := range sm.Errors {
		line, _ := de.Position()
		key := []string(de.Key())
		rel := key
		if len(key) > 2 && key[0] == "profiles" {
			rel = key[2:]
		}
		if ignoredCodexKey(rel) {
			name := joinKey(key)
			if v, _ := lookup(doc, key...); v != nil {
				if _, table := v.(tree); table {
					name = "[" + name + "]"
				}
			}
			if !seen[name] {
				seen[name] = true
				ignored = append(ignored, ignoredKey{key: key, name: name, line: line})
			}
			continue
		}
		e := &Error{Source: path, Line: line, Key: joinKey(key), Err: &de}
		if why := unsupportedCodexKey(rel); why != "" {
			e.Msg = "a Codex key Docket does not support: " + why
		} else {
			e.Msg = "unknown key"
			valid := validKeys(key[:len(key)-1])
			if len(rel) == 1 {
				// A misspelt UI key gets its spelling too, not an unrelated key.
				valid = append(valid, ignoredTopKeys()...)
			}
			e.Suggestion = policy.Nearest(key[len(key)-1], valid)
			if e.Suggestion != "" {
				e.Msg += fmt.Sprintf("; did you mean %q?", e.Suggestion)
			}
		}
		errs = append(errs, e)
	}
	slices.SortStableFunc(errs, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
	slices.SortStableFunc(ignored, func(a, b ignoredKey) int { return cmp.Compare(a.line, b.line) })
	return ignored, errs
}

// ignoredWarning is the one warning for every ignored key of a file.
func ignoredWarning(path string, keys []ignoredKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s (line %d)", k.name, k.line)
	}
	return fmt.Sprintf("%s: ignoring Codex settings for Codex's own interface and feature flags: %s", path, strings.Join(parts, ", "))
}

// removeKey deletes key from t, and the tables it leaves empty.
func removeKey(t tree, key []string) {
	if len(key) == 1 {
		delete(t, key[0])
		return
	}
	sub, ok := t[key[0]].(tree)
	if !ok {
		return
	}
	removeKey(sub, key[1:])
	if len(sub) == 0 {
		delete(t, key[0])
	}
}

// asStrictMissing returns the unknown-key error inside err, if that is
// what err is.
func asStrictMissing(err error) (*toml.StrictMissingError, bool) {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		return sm, true
	}
	return nil, false
}

// Codex's values of model_reasoning_effort, model_reasoning_summary and
// model_verbosity; they go to the provider as the Responses API's
// reasoning.effort, reasoning.summary and text.verbosity.
func reasoningEfforts() []string {
	return []string{"none", "minimal", "low", "medium", "high", "xhigh"}
}
func reasoningSummaries() []string { return []string{"auto", "concise", "detailed", "none"} }
func verbosities() []string        { return []string{"low", "medium", "high"} }
