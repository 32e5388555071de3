package openai

import (
	"encoding/json"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// customInputSchema is how a custom (free-text) tool looks on the Chat wire,
// which has only function tools: one string parameter named input.
func customInputSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"input": map[string]any{"type": "string", "description": "The tool's free-text input."},
		},
		"required":             []any{"input"},
		"additionalProperties": false,
	}
}

// chatParams maps a model.Request onto a Chat Completions request body.
func (p *Provider) chatParams(req model.Request) (sdk.ChatCompletionNewParams, error) {
	msgs, err := chatMessages(req.Instructions, req.Items)
	if err != nil {
		return sdk.ChatCompletionNewParams{}, fmt.Errorf("model provider %s: %w", p.cfg.Name, err)
	}
	params := sdk.ChatCompletionNewParams{
		Model:         req.Model,
		Messages:      msgs,
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	for _, s := range req.Tools {
		def := shared.FunctionDefinitionParam{Name: s.Name}
		if s.Description != "" {
			def.Description = param.NewOpt(s.Description)
		}
		switch s.Kind {
		case model.ToolFunction, "":
			schema, err := schemaMap(s)
			if err != nil {
				return sdk.ChatCompletionNewParams{}, fmt.Errorf("model provider %s: %w", p.cfg.Name, err)
			}
			def.Parameters = schema
		case model.ToolCustom:
			def.Parameters = customInputSchema()
		default:
			return sdk.ChatCompletionNewParams{}, fmt.Errorf("model provider %s: tool %q: unknown kind %q", p.cfg.Name, s.Name, s.Kind)
		}
		params.Tools = append(params.Tools, sdk.ChatCompletionFunctionTool(def))
	}
	if len(params.Tools) > 0 {
		params.ParallelToolCalls = param.NewOpt(req.ParallelToolCalls)
	}
	if req.Temperature != nil {
		params.Temperature = param.NewOpt(*req.Temperature)
	}
	if len(req.OutputSchema) > 0 {
		schema, err := outputSchema(req.OutputSchema)
		if err != nil {
			return sdk.ChatCompletionNewParams{}, fmt.Errorf("model provider %s: %w", p.cfg.Name, err)
		}
		params.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: outputSchemaName, Schema: schema, Strict: param.NewOpt(true)}}}
	}
	return params, nil
}

// chatMessages maps conversation items onto chat messages. Consecutive tool
// calls (and the assistant text just before them) share one assistant message.
func chatMessages(instructions string, items []events.Item) ([]sdk.ChatCompletionMessageParamUnion, error) {
	items = withWireCallIDs(items)
	var out []sdk.ChatCompletionMessageParamUnion
	if instructions != "" {
		out = append(out, sdk.SystemMessage(instructions))
	}
	// open is the assistant message tool calls may still join.
	var open *sdk.ChatCompletionAssistantMessageParam
	addCall := func(id, name, args string) {
		if open == nil {
			out = append(out, sdk.ChatCompletionMessageParamUnion{OfAssistant: &sdk.ChatCompletionAssistantMessageParam{}})
			open = out[len(out)-1].OfAssistant
		}
		open.ToolCalls = append(open.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
				ID:       id,
				Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: name, Arguments: args},
			},
		})
	}
	for i, it := range items {
		switch it.Type {
		case events.ItemMessage:
			role, err := messageRole(i, it)
			if err != nil {
				return nil, err
			}
			open = nil
			switch role {
			case "user":
				if len(it.Images) > 0 {
					parts := []sdk.ChatCompletionContentPartUnionParam{sdk.TextContentPart(it.Text)}
					for _, u := range it.Images {
						parts = append(parts, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: u}))
					}
					out = append(out, sdk.UserMessage(parts))
					continue
				}
				out = append(out, sdk.UserMessage(it.Text))
			case "system":
				out = append(out, sdk.SystemMessage(it.Text))
			case "developer":
				out = append(out, sdk.DeveloperMessage(it.Text))
			case "assistant":
				out = append(out, sdk.AssistantMessage(it.Text))
				open = out[len(out)-1].OfAssistant
			}
		case events.ItemReasoning:
			// Chat Completions takes no reasoning input.
		case events.ItemFunctionCall:
			if it.CallID == "" || it.Name == "" {
				return nil, fmt.Errorf("item %d (function_call): call_id and name are required", i)
			}
			args := it.Arguments
			if args == "" {
				args = "{}"
			}
			addCall(it.CallID, it.Name, args)
		case events.ItemCustomToolCall:
			if it.CallID == "" || it.Name == "" {
				return nil, fmt.Errorf("item %d (custom_tool_call): call_id and name are required", i)
			}
			args, err := json.Marshal(map[string]string{"input": it.Input})
			if err != nil {
				return nil, fmt.Errorf("item %d (custom_tool_call): %w", i, err)
			}
			addCall(it.CallID, it.Name, string(args))
		case events.ItemFunctionCallOutput, events.ItemCustomToolCallOutput:
			if it.CallID == "" {
				return nil, fmt.Errorf("item %d (%s): call_id is required", i, it.Type)
			}
			open = nil
			out = append(out, sdk.ToolMessage(it.Output, it.CallID))
		default:
			return nil, fmt.Errorf("item %d: unknown item type %q", i, it.Type)
		}
	}
	return out, nil
}
