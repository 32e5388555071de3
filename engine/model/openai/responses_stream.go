package openai

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3/responses"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// partialItem is an output item being assembled from stream events.
type partialItem struct {
	added responses.ResponseOutputItemUnion
	text  strings.Builder // message text or reasoning text
	args  strings.Builder // function arguments or custom tool input
	done  *responses.ResponseOutputItemUnion
}

// responsesAttempt makes one streaming request and reads it to the end.
func (p *Provider) responsesAttempt(ctx context.Context, params responses.ResponseNewParams, key string, onDelta func(model.Delta)) (model.Response, error) {
	ctx, dog, stop := watch(ctx, p.idle)
	defer stop()
	stream := p.responses.NewStreaming(ctx, params, requestOptions(key)...)
	// The stream is read to its end or abandoned; a failed close loses nothing.
	defer func() { _ = stream.Close() }()

	var (
		respID string
		parts  = map[int64]*partialItem{}
		byID   = map[string]*partialItem{}
	)
	at := func(ev responses.ResponseStreamEventUnion) *partialItem {
		if pi, ok := byID[ev.ItemID]; ok && ev.ItemID != "" {
			return pi
		}
		pi, ok := parts[ev.OutputIndex]
		if !ok {
			pi = &partialItem{}
			parts[ev.OutputIndex] = pi
		}
		return pi
	}
	for stream.Next() {
		dog.kick()
		ev := stream.Current()
		switch ev.Type {
		case "response.created", "response.in_progress":
			respID = ev.Response.ID
		case "response.output_item.added":
			pi := at(ev)
			pi.added = ev.Item
			if ev.Item.ID != "" {
				byID[ev.Item.ID] = pi
			}
		case "response.output_text.delta":
			at(ev).text.WriteString(ev.Delta)
			onDelta(model.Delta{Kind: model.DeltaText, Text: ev.Delta})
		case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
			at(ev).text.WriteString(ev.Delta)
			onDelta(model.Delta{Kind: model.DeltaReasoning, Text: ev.Delta})
		case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
			at(ev).args.WriteString(ev.Delta)
		case "response.output_item.done":
			item := ev.Item
			at(ev).done = &item
		case "response.completed":
			r := ev.Response
			if r.ID != "" {
				respID = r.ID
			}
			items := outputItems(r.Output)
			if len(r.Output) == 0 {
				items = assemble(parts)
			}
			return model.Response{ID: respID, Items: items, Usage: responsesUsage(r.Usage)}, nil
		case "response.failed":
			code, msg := string(ev.Response.Error.Code), ev.Response.Error.Message
			if msg == "" {
				msg = "response failed"
			}
			return model.Response{}, p.streamFailure(StreamFailed, code, msg, nil)
		case "response.incomplete":
			reason := ev.Response.IncompleteDetails.Reason
			if reason == "" {
				reason = "unknown reason"
			}
			return model.Response{}, p.streamFailure(StreamIncomplete, reason, "response incomplete: "+reason, nil)
		case "error":
			return model.Response{}, p.streamFailure(StreamFailed, ev.Code, ev.Message, nil)
		}
	}
	return model.Response{}, p.endOfStream(ctx, dog, stream.Err(), "response.completed")
}

// endOfStream explains why a stream stopped before its terminal event.
func (p *Provider) endOfStream(ctx context.Context, dog *watchdog, err error, want string) error {
	if dog.idle() {
		return p.streamFailure(StreamIdle, "", "no data for "+p.idle.String(), nil)
	}
	if err == nil {
		return p.streamFailure(StreamTruncated, "", "connection closed before "+want, nil)
	}
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return err
	}
	return p.classifyRequestError(err)
}

// assemble builds items from streamed parts when the terminal event carried
// no output (some compatible servers leave it empty).
func assemble(parts map[int64]*partialItem) []events.Item {
	idx := make([]int64, 0, len(parts))
	for i := range parts {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var out []events.Item
	for _, i := range idx {
		pi := parts[i]
		if pi.done != nil {
			if it, ok := outputItem(*pi.done); ok {
				out = append(out, it)
			}
			continue
		}
		it, ok := outputItem(pi.added)
		if !ok {
			continue
		}
		switch it.Type {
		case events.ItemMessage, events.ItemReasoning:
			it.Text = pi.text.String()
		case events.ItemFunctionCall:
			it.Arguments = pi.args.String()
		case events.ItemCustomToolCall:
			it.Input = pi.args.String()
		}
		out = append(out, it)
	}
	return out
}

// outputItems maps the response's output onto conversation items.
func outputItems(output []responses.ResponseOutputItemUnion) []events.Item {
	var out []events.Item
	for _, o := range output {
		if it, ok := outputItem(o); ok {
			out = append(out, it)
		}
	}
	return out
}

// outputItem maps one output item; built-in tool items we never asked for
// are dropped.
func outputItem(o responses.ResponseOutputItemUnion) (events.Item, bool) {
	switch o.Type {
	case "message":
		var b strings.Builder
		for _, c := range o.Content {
			switch c.Type {
			case "output_text":
				b.WriteString(c.Text)
			case "refusal":
				b.WriteString(c.Refusal)
			}
		}
		role := o.Role
		if role == "" {
			role = "assistant"
		}
		return events.Item{Type: events.ItemMessage, ID: o.ID, Role: role, Text: b.String()}, true
	case "reasoning":
		r := o.AsReasoning()
		var texts []string
		for _, s := range r.Summary {
			texts = append(texts, s.Text)
		}
		if len(texts) == 0 {
			for _, c := range r.Content {
				texts = append(texts, c.Text)
			}
		}
		return events.Item{Type: events.ItemReasoning, ID: o.ID, Text: strings.Join(texts, "\n\n")}, true
	case "function_call":
		return events.Item{Type: events.ItemFunctionCall, ID: o.ID, CallID: o.CallID, Name: o.Name, Arguments: o.Arguments.OfString}, true
	case "custom_tool_call":
		return events.Item{Type: events.ItemCustomToolCall, ID: o.ID, CallID: o.CallID, Name: o.Name, Input: o.Input}, true
	case "shell_call":
		return shellCallItem(o), true
	case "apply_patch_call":
		return applyPatchCallItem(o), true
	}
	return events.Item{}, false
}

func responsesUsage(u responses.ResponseUsage) events.Usage {
	return events.Usage{
		InputTokens:       u.InputTokens,
		CachedInputTokens: u.InputTokensDetails.CachedTokens,
		OutputTokens:      u.OutputTokens,
		ReasoningTokens:   u.OutputTokensDetails.ReasoningTokens,
	}
}
