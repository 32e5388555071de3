package config

import "github.com/docket-engine/docket/states/policy"

// Model provider names with a built-in meaning.
const (
	ProviderOpenAI = "openai"
	ProviderScript = "script"
)

// Wire APIs a model provider may speak.
const (
	WireResponses = "responses"
	WireChat      = "chat"
)

// Policies returns the valid approval_policy spellings (policy's values).
func Policies() []string {
	var out []string
	for _, p := range policy.ApprovalPolicies() {
		out = append(out, p.String())
	}
	return out
}

// Modes returns the valid sandbox_mode spellings (policy's values).
func Modes() []string {
	var out []string
	for _, m := range policy.SandboxModes() {
		out = append(out, m.String())
	}
	return out
}

func wireAPIs() []string { return []string{WireResponses, WireChat} }

func mcpApprovals() []string { return []string{"auto", "always", "never"} }

// defaultsTOML is the built-in layer. Codex's defaults where Codex has the
// key; Docket's own otherwise.
const defaultsTOML = `
model = "gpt-5-codex"
model_provider = "openai"
approval_policy = "on-request"
sandbox_mode = "read-only"
tool_output_max_bytes = 16384
approval_timeout_sec = 0
project_doc_max_bytes = 32768
experimental_risk_assessment = false

[sandbox_workspace_write]
writable_roots = []
network_access = false
exclude_tmpdir_env_var = false
exclude_slash_tmp = false

[sandbox]
require_protected_paths = false
# sandbox.DefaultLimits: room for builds, 200 children, 64 threads.
max_processes = 4096
max_memory_mb = 8192
max_cpu_seconds = 3600
max_file_size_mb = 8192

[model_providers.openai]
base_url = "https://api.openai.com/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 2
stream_idle_timeout_ms = 300000

# Codex's built-in local providers: no env_key, no credentials.
[model_providers.ollama]
name = "Ollama"
base_url = "http://localhost:11434/v1"
wire_api = "responses"

[model_providers.lmstudio]
name = "LM Studio"
base_url = "http://localhost:1234/v1"
wire_api = "responses"
`
