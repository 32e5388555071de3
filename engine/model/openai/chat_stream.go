package openai

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	sdk "github.com/openai/openai-go/v3"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// chatCall is one tool call being accumulated from chunk deltas.
type chatCall struct {
	id, name string
	args     strings.Builder
}

// chatAttempt makes one streaming Chat Completions request and reads it to
// the end, accumulating tool-call deltas into whole calls.
func (p *Provider) chatAttempt(ctx context.Context, params sdk.ChatCompletionNewParams, tools []model.ToolSpec, key string, onDelta func(model.Delta)) (model.Response, error) {
	ctx, dog, stop := watch(ctx, p.idle)
	defer stop()
	stream := p.chat.NewStreaming(ctx, params, requestOptions(key)...)
	// The stream is read to its end or abandoned; a failed close loses nothing.
	defer func() { _ = stream.Close() }()

	var (
		id        string
		text      strings.Builder
		reasoning strings.Builder
		calls     = map[int64]*chatCall{}
		usage     events.Usage
		finished  bool
	)
	for stream.Next() {
		dog.kick()
		ch := stream.Current()
		if ch.ID != "" {
			id = ch.ID
		}
		if ch.JSON.Usage.Valid() {
			usage = events.Usage{
				InputTokens:       ch.Usage.PromptTokens,
				CachedInputTokens: ch.Usage.PromptTokensDetails.CachedTokens,
				OutputTokens:      ch.Usage.CompletionTokens,
				ReasoningTokens:   ch.Usage.CompletionTokensDetails.ReasoningTokens,
			}
		}
		for _, c := range ch.Choices {
			if c.Index != 0 {
				continue
			}
			d := c.Delta
			if r := extraReasoning(d); r != "" {
				reasoning.WriteString(r)
				onDelta(model.Delta{Kind: model.DeltaReasoning, Text: r})
			}
			if d.Content != "" {
				text.WriteString(d.Content)
				onDelta(model.Delta{Kind: model.DeltaText, Text: d.Content})
			}
			for _, tc := range d.ToolCalls {
				call, ok := calls[tc.Index]
				if !ok {
					call = &chatCall{}
					calls[tc.Index] = call
				}
				if tc.ID != "" {
					call.id = tc.ID
				}
				if tc.Function.Name != "" {
					call.name = tc.Function.Name
				}
				call.args.WriteString(tc.Function.Arguments)
			}
			if c.FinishReason != "" {
				finished = true
			}
		}
	}
	if !finished {
		return model.Response{}, p.endOfStream(ctx, dog, stream.Err(), "a finish_reason")
	}
	// A usage-only chunk may follow finish_reason; an error after it is not
	// worth losing the answer over.
	return model.Response{ID: id, Items: chatItems(reasoning.String(), text.String(), calls, tools), Usage: usage}, nil
}

// extraReasoning reads the reasoning text some compatible servers stream in
// a non-standard delta field.
func extraReasoning(d sdk.ChatCompletionChunkChoiceDelta) string {
	for _, k := range []string{"reasoning_content", "reasoning"} {
		// The SDK marks unknown fields invalid, so read the raw value.
		f, ok := d.JSON.ExtraFields[k]
		if !ok || f.Raw() == "" || f.Raw() == "null" {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// chatItems turns the accumulated answer into conversation items; calls to
// custom tools come back as custom_tool_call with their input unwrapped.
func chatItems(reasoning, text string, calls map[int64]*chatCall, tools []model.ToolSpec) []events.Item {
	var out []events.Item
	if reasoning != "" {
		out = append(out, events.Item{Type: events.ItemReasoning, Text: reasoning})
	}
	if text != "" {
		out = append(out, events.Item{Type: events.ItemMessage, Role: "assistant", Text: text})
	}
	custom := map[string]bool{}
	for _, t := range tools {
		if t.Kind == model.ToolCustom {
			custom[t.Name] = true
		}
	}
	idx := make([]int64, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, i := range idx {
		c := calls[i]
		args := c.args.String()
		if custom[c.name] {
			var in struct {
				Input *string `json:"input"`
			}
			if json.Unmarshal([]byte(args), &in) == nil && in.Input != nil {
				out = append(out, events.Item{Type: events.ItemCustomToolCall, CallID: c.id, Name: c.name, Input: *in.Input})
				continue
			}
			// Malformed wrapper: pass it on as a function call so the
			// tool router can tell the model what was wrong.
		}
		out = append(out, events.Item{Type: events.ItemFunctionCall, CallID: c.id, Name: c.name, Arguments: args})
	}
	return out
}
