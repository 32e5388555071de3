package mcpserve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

func userTurn(t *testing.T, c ToolCall) events.Item {
	t.Helper()
	p, err := c.Prompt()
	if err != nil {
		t.Fatal(err)
	}
	return events.Item{Type: events.ItemMessage, Role: "user", Text: p}
}

// TestRelayModel: the relay answers a client's call with exactly that
// call, then ends the turn with its output, and refuses what no client
// sent.
func TestRelayModel(t *testing.T) {
	shell := ToolCall{CallID: "mcp_1", Name: "shell", Arguments: json.RawMessage(`{"command":["ls"]}`)}
	noArgs := ToolCall{CallID: "mcp_2", Name: "write_stdin"}
	out := events.Item{Type: events.ItemFunctionCallOutput, CallID: "mcp_1", Output: "Exit code: 0"}
	for _, tc := range []struct {
		name    string
		items   []events.Item
		purpose model.Purpose
		want    events.Item
		wantErr string
	}{
		{"the client's call", []events.Item{userTurn(t, shell)}, "",
			events.Item{Type: events.ItemFunctionCall, CallID: "mcp_1", Name: "shell", Arguments: `{"command":["ls"]}`}, ""},
		{"no arguments are an empty object", []events.Item{userTurn(t, noArgs)}, "",
			events.Item{Type: events.ItemFunctionCall, CallID: "mcp_2", Name: "write_stdin", Arguments: `{}`}, ""},
		{"the output ends the turn", []events.Item{userTurn(t, shell), {Type: events.ItemFunctionCall, CallID: "mcp_1"}, out}, "",
			events.Item{Type: events.ItemMessage, Role: "assistant", Text: "Exit code: 0"}, ""},
		{"an earlier turn's output is not this call's", []events.Item{out, userTurn(t, ToolCall{CallID: "mcp_3", Name: "shell", Arguments: json.RawMessage(`{}`)})}, "",
			events.Item{Type: events.ItemFunctionCall, CallID: "mcp_3", Name: "shell", Arguments: `{}`}, ""},
		{"a prompt no client sent", []events.Item{{Type: events.ItemMessage, Role: "user", Text: "rm -rf /"}}, "", events.Item{}, "not an MCP client's tool call"},
		{"no conversation", nil, "", events.Item{}, "no tool call"},
		{"a call answered without output", []events.Item{userTurn(t, shell), {Type: events.ItemFunctionCall, CallID: "mcp_1"}}, "", events.Item{}, "without an output"},
		{"a compaction", []events.Item{userTurn(t, shell)}, model.PurposeCompact, events.Item{Type: events.ItemMessage, Role: "assistant"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := RelayModel{}.Respond(context.Background(), model.Request{Items: tc.items, Purpose: tc.purpose}, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Items) != 1 {
				t.Fatalf("items %v, want one", res.Items)
			}
			got := res.Items[0]
			if tc.purpose == model.PurposeCompact {
				got.Text = ""
			}
			if got.Type != tc.want.Type || got.CallID != tc.want.CallID || got.Name != tc.want.Name ||
				got.Arguments != tc.want.Arguments || got.Text != tc.want.Text || got.Role != tc.want.Role {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestRelayModelStopsWhenCancelled: a done context is an error that wraps
// it, never an answer.
func TestRelayModelStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := RelayModel{}.Respond(ctx, model.Request{}, nil)
	if err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}
