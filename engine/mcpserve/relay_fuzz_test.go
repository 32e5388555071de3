package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// FuzzRelay journals any client call (a tool name and argument bytes, as
// an MCP client sends them) as a user turn and has the relay model answer
// it: the call reaches the engine as the client sent it (the same id,
// name and arguments, as JSON), or is refused at encoding; and any user
// text the relay reads (a journal's turn) is a call with an id and a name,
// or an error.
func FuzzRelay(f *testing.F) {
	f.Add("exec_command", []byte(`{"cmd":"ls"}`), "")
	f.Add("apply_patch", []byte(`{"input":"*** Begin Patch\n*** End Patch"}`), promptPrefix+`{"call_id":"x","name":"y"}`)
	f.Add("a\"b\u2028", []byte(` [1, 2] `), promptPrefix+`{"call_id":"","name":"y"}`)
	f.Add("x", []byte(`{`), promptPrefix+`{"call_id":"x","name":"y","arguments":{"a":1}} trailing`)
	f.Add("\xff", []byte(`"\ud800"`), "hello")
	f.Fuzz(func(t *testing.T, name string, args []byte, text string) {
		if c, err := parsePrompt(text); err == nil && (c.CallID == "" || c.Name == "") {
			t.Fatalf("parsed a call without an id or a name from %q", text)
		}
		prompt, err := ToolCall{CallID: "mcp_1", Name: name, Arguments: args}.Prompt()
		if err != nil {
			if json.Valid(args) {
				t.Fatalf("valid arguments %q refused: %v", args, err)
			}
			return
		}
		res, err := RelayModel{}.Respond(context.Background(), model.Request{Items: []events.Item{{Type: events.ItemMessage, Role: "user", Text: prompt}}}, nil)
		if name == "" {
			if err == nil {
				t.Fatal("relayed a call without a name")
			}
			return
		}
		if err != nil {
			t.Fatalf("the relay refused its own prompt %q: %v", prompt, err)
		}
		if len(res.Items) != 1 || res.Items[0].Type != events.ItemFunctionCall || res.Items[0].CallID != "mcp_1" {
			t.Fatalf("relayed %+v", res.Items)
		}
		got := res.Items[0]
		if utf8.ValidString(name) && got.Name != name {
			t.Fatalf("name %q relayed as %q", name, got.Name)
		}
		var want, have bytes.Buffer
		if len(bytes.TrimSpace(args)) == 0 {
			args = []byte("{}")
		}
		if json.Compact(&want, args) != nil || json.Compact(&have, []byte(got.Arguments)) != nil {
			t.Fatalf("arguments %q relayed as %q", args, got.Arguments)
		}
		if utf8.Valid(args) && want.String() != have.String() {
			t.Fatalf("arguments %s relayed as %s", want.String(), have.String())
		}
	})
}
