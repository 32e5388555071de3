package events

// Item types, following the Responses API's output-item shapes.
const (
	ItemMessage              = "message"
	ItemReasoning            = "reasoning"
	ItemFunctionCall         = "function_call"
	ItemCustomToolCall       = "custom_tool_call"
	ItemFunctionCallOutput   = "function_call_output"
	ItemCustomToolCallOutput = "custom_tool_call_output"
	// The Responses API's own shell and apply_patch tools: a shell_call's
	// Arguments are its action as JSON ({"commands", "timeout_ms",
	// "max_output_length"}) and its output's Output the JSON array of
	// {stdout, stderr, outcome}; an apply_patch_call's Arguments are its
	// operation as JSON ({"type", "path", "diff"}) and its output carries
	// Status ("completed" or "failed") and the log text in Output.
	ItemShellCall            = "shell_call"
	ItemShellCallOutput      = "shell_call_output"
	ItemApplyPatchCall       = "apply_patch_call"
	ItemApplyPatchCallOutput = "apply_patch_call_output"
)

// Item is one conversation item: a message, a reasoning summary, a tool call
// or a tool call's output. Which fields are set depends on Type.
type Item struct {
	Type      string `msgpack:"type" json:"type"`
	ID        string `msgpack:"id,omitempty" json:"id,omitempty"`
	Role      string `msgpack:"role,omitempty" json:"role,omitempty"`
	Text      string `msgpack:"text,omitempty" json:"text,omitempty"`
	CallID    string `msgpack:"call_id,omitempty" json:"call_id,omitempty"`
	Name      string `msgpack:"name,omitempty" json:"name,omitempty"`
	Arguments string `msgpack:"arguments,omitempty" json:"arguments,omitempty"`
	Input     string `msgpack:"input,omitempty" json:"input,omitempty"`
	Output    string `msgpack:"output,omitempty" json:"output,omitempty"`
	// Images are a user message's images, as data URLs (exec --image).
	Images []string `msgpack:"images,omitempty" json:"images,omitempty"`
	// Status is an apply_patch_call_output's "completed" or "failed".
	Status string `msgpack:"status,omitempty" json:"status,omitempty"`
}

// Usage counts the tokens of one model response or one turn.
type Usage struct {
	InputTokens       int64 `msgpack:"input_tokens,omitempty" json:"input_tokens"`
	CachedInputTokens int64 `msgpack:"cached_input_tokens,omitempty" json:"cached_input_tokens"`
	OutputTokens      int64 `msgpack:"output_tokens,omitempty" json:"output_tokens"`
	ReasoningTokens   int64 `msgpack:"reasoning_tokens,omitempty" json:"reasoning_output_tokens,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens + o.InputTokens,
		CachedInputTokens: u.CachedInputTokens + o.CachedInputTokens,
		OutputTokens:      u.OutputTokens + o.OutputTokens,
		ReasoningTokens:   u.ReasoningTokens + o.ReasoningTokens,
	}
}
