package openai

import (
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// Reasoning settings Codex users set at the top of config.toml
// (model_reasoning_effort, model_reasoning_summary, model_verbosity); empty
// means the server's default. ReasoningSummary "none" asks for no summary.
type Reasoning struct {
	Effort    string
	Summary   string
	Verbosity string
}

// applyResponses puts the settings on a Responses API request: reasoning
// effort and summary, and text verbosity.
func (r Reasoning) applyResponses(p *responses.ResponseNewParams) {
	if r.Effort != "" {
		p.Reasoning.Effort = shared.ReasoningEffort(r.Effort)
	}
	if r.Summary != "" && r.Summary != "none" {
		p.Reasoning.Summary = shared.ReasoningSummary(r.Summary)
	}
	if r.Verbosity != "" {
		p.Text.Verbosity = responses.ResponseTextConfigVerbosity(r.Verbosity)
	}
}

// applyChat puts the settings Chat Completions has on a request: reasoning
// effort and verbosity (it has no reasoning summary).
func (r Reasoning) applyChat(p *sdk.ChatCompletionNewParams) {
	if r.Effort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(r.Effort)
	}
	if r.Verbosity != "" {
		p.Verbosity = sdk.ChatCompletionNewParamsVerbosity(r.Verbosity)
	}
}
