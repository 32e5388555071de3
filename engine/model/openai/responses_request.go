package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// responsesParams maps a model.Request onto a Responses API request body.
func responsesParams(req model.Request) (responses.ResponseNewParams, error) {
	input, err := responsesInput(req.Items)
	if err != nil {
		return responses.ResponseNewParams{}, err
	}
	tools, err := responsesTools(req.Tools)
	if err != nil {
		return responses.ResponseNewParams{}, err
	}
	p := responses.ResponseNewParams{
		Model: req.Model,
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		Tools: tools,
	}
	if req.Instructions != "" {
		p.Instructions = param.NewOpt(req.Instructions)
	}
	if len(tools) > 0 {
		// Servers reject parallel_tool_calls without tools.
		p.ParallelToolCalls = param.NewOpt(req.ParallelToolCalls)
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if len(req.OutputSchema) > 0 {
		schema, err := outputSchema(req.OutputSchema)
		if err != nil {
			return responses.ResponseNewParams{}, err
		}
		f := responses.ResponseFormatTextConfigParamOfJSONSchema(outputSchemaName, schema)
		f.OfJSONSchema.Strict = param.NewOpt(true)
		p.Text.Format = f
	}
	return p, nil
}

// outputSchemaName names the structured-output format, as Codex does.
const outputSchemaName = "codex_output_schema"

// outputSchema decodes an --output-schema JSON Schema object.
func outputSchema(raw json.RawMessage) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("output schema: not a JSON object: %w", err)
	}
	return m, nil
}

// messageRoles are the roles an input message may carry.
var messageRoles = map[string]responses.EasyInputMessageRole{
	"user":      responses.EasyInputMessageRoleUser,
	"assistant": responses.EasyInputMessageRoleAssistant,
	"system":    responses.EasyInputMessageRoleSystem,
	"developer": responses.EasyInputMessageRoleDeveloper,
}

// messageRole resolves an item's role; an unset role on a conversation
// message is the user's.
func messageRole(i int, it events.Item) (string, error) {
	if it.Role == "" {
		return "user", nil
	}
	if _, ok := messageRoles[it.Role]; !ok {
		return "", fmt.Errorf("item %d (message): unknown role %q (want user, assistant, system or developer)", i, it.Role)
	}
	return it.Role, nil
}

// responsesInput maps conversation items onto Responses API input items.
func responsesInput(items []events.Item) (responses.ResponseInputParam, error) {
	items = withWireCallIDs(items)
	out := make(responses.ResponseInputParam, 0, len(items))
	for i, it := range items {
		switch it.Type {
		case events.ItemMessage:
			role, err := messageRole(i, it)
			if err != nil {
				return nil, err
			}
			if len(it.Images) > 0 {
				out = append(out, responses.ResponseInputItemParamOfMessage(imageContent(it), messageRoles[role]))
				continue
			}
			out = append(out, responses.ResponseInputItemParamOfMessage(it.Text, messageRoles[role]))
		case events.ItemReasoning:
			// A reasoning item can only be sent back by id; without one
			// (e.g. from the Chat wire) it is display-only.
			if it.ID == "" {
				continue
			}
			summary := []responses.ResponseReasoningItemSummaryParam{}
			if it.Text != "" {
				summary = append(summary, responses.ResponseReasoningItemSummaryParam{Text: it.Text})
			}
			out = append(out, responses.ResponseInputItemParamOfReasoning(it.ID, summary))
		case events.ItemFunctionCall:
			if it.CallID == "" || it.Name == "" {
				return nil, fmt.Errorf("item %d (function_call): call_id and name are required", i)
			}
			args := it.Arguments
			if args == "" {
				args = "{}"
			}
			out = append(out, responses.ResponseInputItemParamOfFunctionCall(args, it.CallID, it.Name))
		case events.ItemFunctionCallOutput:
			if it.CallID == "" {
				return nil, fmt.Errorf("item %d (function_call_output): call_id is required", i)
			}
			out = append(out, responses.ResponseInputItemParamOfFunctionCallOutput(it.Output))
			out[len(out)-1].OfFunctionCallOutput.CallID = param.NewOpt(it.CallID)
		case events.ItemCustomToolCall:
			if it.CallID == "" || it.Name == "" {
				return nil, fmt.Errorf("item %d (custom_tool_call): call_id and name are required", i)
			}
			out = append(out, responses.ResponseInputItemParamOfCustomToolCall(it.CallID, it.Input, it.Name))
		case events.ItemCustomToolCallOutput:
			if it.CallID == "" {
				return nil, fmt.Errorf("item %d (custom_tool_call_output): call_id is required", i)
			}
			out = append(out, responses.ResponseInputItemParamOfCustomToolCallOutput(it.CallID, it.Output))
		case events.ItemShellCall, events.ItemShellCallOutput, events.ItemApplyPatchCall, events.ItemApplyPatchCallOutput:
			p, err := nativeInputItem(i, it)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		default:
			return nil, fmt.Errorf("item %d: unknown item type %q", i, it.Type)
		}
	}
	return out, nil
}

// imageContent is a message with images: its text, then one input_image
// part an image (a data URL), as Codex sends exec --image.
func imageContent(it events.Item) responses.ResponseInputMessageContentListParam {
	parts := responses.ResponseInputMessageContentListParam{responses.ResponseInputContentParamOfInputText(it.Text)}
	for _, u := range it.Images {
		img := responses.ResponseInputContentParamOfInputImage(responses.ResponseInputImageDetailAuto)
		img.OfInputImage.ImageURL = param.NewOpt(u)
		parts = append(parts, img)
	}
	return parts
}

// responsesTools maps tool specs onto Responses API tools.
func responsesTools(specs []model.ToolSpec) ([]responses.ToolUnionParam, error) {
	var out []responses.ToolUnionParam
	for _, s := range specs {
		switch s.Kind {
		case model.ToolFunction, "":
			schema, err := schemaMap(s)
			if err != nil {
				return nil, err
			}
			t := responses.ToolParamOfFunction(s.Name, schema, false)
			if s.Description != "" {
				t.OfFunction.Description = param.NewOpt(s.Description)
			}
			out = append(out, t)
		case model.ToolCustom:
			t := responses.ToolParamOfCustom(s.Name)
			if s.Description != "" {
				t.OfCustom.Description = param.NewOpt(s.Description)
			}
			out = append(out, t)
		case model.ToolShell:
			out = append(out, responses.ToolUnionParam{OfShell: &responses.FunctionShellToolParam{}})
		case model.ToolApplyPatch:
			out = append(out, responses.ToolUnionParam{OfApplyPatch: &responses.ApplyPatchToolParam{}})
		default:
			return nil, fmt.Errorf("tool %q: unknown kind %q (want %q, %q, %q or %q)", s.Name, s.Kind, model.ToolFunction, model.ToolCustom, model.ToolShell, model.ToolApplyPatch)
		}
	}
	return out, nil
}

// schemaMap decodes a function tool's JSON Schema; none means no parameters.
func schemaMap(s model.ToolSpec) (map[string]any, error) {
	if len(strings.TrimSpace(string(s.Parameters))) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(s.Parameters, &m); err != nil {
		return nil, fmt.Errorf("tool %q: parameters are not a JSON object: %w", s.Name, err)
	}
	return m, nil
}
