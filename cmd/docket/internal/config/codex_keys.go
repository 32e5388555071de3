package config

import (
	"fmt"
	"slices"
)

// CodexExtras are the keys of Codex CLI 0.171's config.toml that Docket
// implements beyond CLI.md's first set (docs/decisions.md, "Codex 0.171
// config"). Config embeds it, so the keys are top-level.
type CodexExtras struct {
	// ToolOutputTokenLimit caps a tool's output in the model's context, in
	// tokens; Docket caps in bytes at Codex's four bytes a token, when
	// tool_output_max_bytes is not set itself.
	ToolOutputTokenLimit int64 `toml:"tool_output_token_limit"`
	// ProjectDocFallbackFilenames are read, in order, in a directory that
	// has no AGENTS.md (CLAUDE.md, .cursorrules, ...).
	ProjectDocFallbackFilenames []string `toml:"project_doc_fallback_filenames"`
	// ModelCatalogJSON is a JSON model catalog ({"models":[{"slug":...,
	// "context_window":...}]}), relative to the config file's folder;
	// Docket takes the model's context window from it.
	ModelCatalogJSON string `toml:"model_catalog_json"`
	// OSSProvider is the local provider --oss uses: ollama or lmstudio.
	OSSProvider string `toml:"oss_provider"`
}

// Built-in local providers, as Codex has them: no env_key, so no
// credentials are asked for.
const (
	ProviderOllama   = "ollama"
	ProviderLMStudio = "lmstudio"
	// DefaultOSSModel is the model --oss runs when none is chosen (Codex's).
	DefaultOSSModel = "gpt-oss:20b"
)

func ossProviders() []string { return []string{ProviderLMStudio, ProviderOllama} }

// codexNoteKeys are the top-level keys of Codex 0.171's config.toml (and
// of the versions before it, whose keys a config keeps) that Docket has no
// use for, each with why when the reason is not simply that it is about
// Codex's own interface, account or features. Such a key is noted once,
// never an error.
func codexNoteKeys() map[string]string {
	notes := map[string]string{}
	for _, k := range []string{
		// interface and client state
		"file_opener", "hide_agent_reasoning", "show_raw_agent_reasoning", "history", "tui", "features", "notice",
		"check_for_update_on_startup", "disable_paste_burst", "windows_wsl_setup_acknowledged",
		"model_reasoning_summary_format", "experimental_use_rmcp_client", "analytics", "desktop", "audio",
		"suppress_unstable_features_warning", "personality", "service_tier", "rollout_trace", "sqlite_home",
		"log_dir", "thread_unload_delay_secs", "ghost_snapshot", "project_root_markers", "cloud", "plugins",
		"skills", "goals", "code_mode", "tool_suggest", "orchestrator", "responses", "responses_api_metadata",
		"apps_mcp_product_sku", "js_repl_node_path", "js_repl_node_module_dirs", "background_terminal_max_timeout",
		"experimental_use_unified_exec_tool", "experimental_realtime_ws_base_url", "experimental_realtime_webrtc_call_base_url",
		"experimental_realtime_ws_model", "experimental_realtime_ws_backend_prompt", "experimental_realtime_ws_startup_context",
		"experimental_realtime_start_instructions", "experimental_thread_store_endpoint", "experimental_thread_store",
		"include_apps_instructions", "include_collaboration_mode_instructions", "include_environment_context",
		"model_auto_compact_token_limit_scope", "model_post_turn_compact_threshold_percent", "plan_mode_reasoning_effort",
		"mcp_enterprise_managed_auth", "mcp_oauth_credentials_store", "mcp_oauth_callback_port", "mcp_oauth_callback_url",
		"mcp_optional_startup_grace_ms", "allow_symlinked_codex_home", "browser_use", "computer_use",
		"approvals_reviewer", "auto_review", "allow_login_shell", "openai_base_url",
	} {
		notes[k] = ""
	}
	for k, why := range map[string]string{
		"review_model":                       "Docket has no review command",
		"web_search":                         "Docket offers the model no web search tool",
		"model_supports_reasoning_summaries": "Docket sends model_reasoning_summary whenever it is set",
		"instructions":                       "Docket builds its instructions from AGENTS.md files (project_doc_max_bytes caps them)",
		"developer_instructions":             "Docket builds its instructions from AGENTS.md files (project_doc_max_bytes caps them)",
		"experimental_instructions_file":     "Docket builds its instructions from AGENTS.md files (project_doc_max_bytes caps them)",
		"model_instructions_file":            "Docket builds its instructions from AGENTS.md files (project_doc_max_bytes caps them)",
		"compact_prompt":                     "Docket compacts with its own prompt",
		"tools":                              "Docket's tools are shell, apply_patch and the configured MCP servers' tools",
		"chatgpt_base_url":                   "Docket logs in with `docket login` (device code) or the provider's env_key",
		"preferred_auth_method":              "Docket logs in with `docket login` (device code) or the provider's env_key",
		"forced_login_method":                "Docket logs in with `docket login` (device code) or the provider's env_key",
		"forced_chatgpt_workspace_id":        "Docket logs in with `docket login` (device code) or the provider's env_key",
		"cli_auth_credentials_store":         "Docket keeps its login in auth.json under its home",
	} {
		notes[k] = why
	}
	return notes
}

// codexNote returns whether key (relative to the document, a profile's
// prefix removed) is a Codex key Docket notes and ignores, and why.
func codexNote(key []string) (bool, string) {
	if why, ok := codexNoteKeys()[key[0]]; ok {
		return true, why
	}
	last := key[len(key)-1]
	switch {
	case len(key) == 2 && key[0] == "shell_environment_policy" && last == "experimental_use_profile":
		return true, "commands run with Docket's own environment policy, without a login profile"
	case len(key) == 3 && key[0] == "model_providers":
		switch last {
		case "env_key_instructions":
			return true, "Docket's error names the variable"
		case "requires_openai_auth":
			return true, "a `docket login` token is sent to the openai provider only"
		case "supports_websockets":
			return true, "Docket streams over HTTP"
		}
	case len(key) == 3 && key[0] == "mcp_servers":
		switch last {
		case "env_vars":
			return true, `forward a variable by name with env = { NAME = "${NAME}" }`
		case "startup_timeout_ms":
			return true, "Docket reads startup_timeout_sec"
		case "oauth", "scopes", "oauth_resource", "enabled_tools_approval_mode", "default_tools_approval_mode":
			return true, ""
		}
	case len(key) >= 2 && key[0] == "otel" && slices.Contains([]string{"metrics_exporter", "log_exporter"}, key[1]):
		return true, "Docket exports traces only"
	}
	return false, ""
}

// noteText names one noted key for the note of its file.
func noteText(k ignoredKey) string {
	if k.why == "" {
		return fmt.Sprintf("%s (line %d)", k.name, k.line)
	}
	return fmt.Sprintf("%s (line %d: %s)", k.name, k.line, k.why)
}
