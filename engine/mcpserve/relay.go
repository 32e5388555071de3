package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// Provider is the model provider an MCP client's session records: the
// "model" of such a session is the client, whose tool calls the relay
// model hands the engine one per turn. A resumed session (docket resume)
// rebuilds RelayModel from this name.
const Provider = "mcp-client"

// promptPrefix starts the user turn that carries one client tool call.
const promptPrefix = "docket mcp-server tools/call "

// ToolCall is one MCP tools/call as the engine receives it: journaled as
// the text of a user turn (so audit and replay show what the client
// asked), then answered by RelayModel as the model's call.
type ToolCall struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	// Arguments are the client's arguments, as it sent them: every tool,
	// apply_patch included ({"input": PATCH}), is called as a function
	// tool, and the engine checks them as it checks a model's.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Prompt encodes c as the text of the user turn that runs it.
func (c ToolCall) Prompt() (string, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("encode tool call %s: %w", c.Name, err)
	}
	return promptPrefix + string(b), nil
}

// parsePrompt decodes a user turn written by Prompt.
func parsePrompt(text string) (ToolCall, error) {
	rest, ok := strings.CutPrefix(text, promptPrefix)
	if !ok {
		return ToolCall{}, errors.New("the turn is not an MCP client's tool call: a session of docket mcp-server runs only the calls its client sends")
	}
	var c ToolCall
	if err := json.Unmarshal([]byte(rest), &c); err != nil {
		return ToolCall{}, fmt.Errorf("decode the client's tool call: %w", err)
	}
	if c.CallID == "" || c.Name == "" {
		return ToolCall{}, errors.New("the client's tool call has no call id or name")
	}
	return c, nil
}

// RelayModel is the model of an MCP client's session. It decides nothing:
// asked in a turn that starts with a client's tool call, it answers with
// exactly that call; asked after the call's output, it ends the turn with
// the output as its final message. So every client call goes through the
// engine as a model's call does (decisions, approvals, sandbox, journal),
// and a resumed session finishes a parked call without a client.
type RelayModel struct{}

// Respond implements model.Model.
func (RelayModel) Respond(ctx context.Context, req model.Request, _ func(model.Delta)) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, fmt.Errorf("mcp-client relay: %w", err)
	}
	if req.Purpose == model.PurposeCompact {
		return model.Response{Items: []events.Item{assistant("An MCP client's session: each turn is one tool call the client sent; nothing to summarise.")}}, nil
	}
	last := -1
	for i := len(req.Items) - 1; i >= 0; i-- {
		if it := req.Items[i]; it.Type == events.ItemMessage && it.Role == "user" {
			last = i
			break
		}
	}
	if last < 0 {
		return model.Response{}, errors.New("mcp-client relay: the conversation has no tool call from the client")
	}
	c, err := parsePrompt(req.Items[last].Text)
	if err != nil {
		return model.Response{}, fmt.Errorf("mcp-client relay: %w", err)
	}
	for _, it := range req.Items[last+1:] {
		if it.CallID == c.CallID && isOutput(it.Type) {
			return model.Response{Items: []events.Item{assistant(it.Output)}}, nil
		}
	}
	for _, it := range req.Items[last+1:] {
		if it.CallID == c.CallID {
			return model.Response{}, fmt.Errorf("mcp-client relay: call %s was answered without an output", c.CallID)
		}
	}
	args := string(c.Arguments)
	if args == "" {
		args = "{}"
	}
	return model.Response{Items: []events.Item{{Type: events.ItemFunctionCall, CallID: c.CallID, Name: c.Name, Arguments: args}}}, nil
}

func isOutput(typ string) bool {
	switch typ {
	case events.ItemFunctionCallOutput, events.ItemCustomToolCallOutput, events.ItemShellCallOutput, events.ItemApplyPatchCallOutput:
		return true
	}
	return false
}

func assistant(text string) events.Item {
	return events.Item{Type: events.ItemMessage, Role: "assistant", Text: text}
}
