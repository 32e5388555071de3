package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docket-engine/docket/events"
)

// FuzzToolResult decodes any tools/call result a server may send (as the
// SDK decodes it) and turns it into the journal's outcome: the model is
// always told something, every text block's text reaches it, and the
// outcome encodes into a journal record and decodes back the same.
func FuzzToolResult(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"hi"}]}`))
	f.Add([]byte(`{"content":[{"type":"image","data":"AAAA","mimeType":""},{"type":"audio","data":"AA=="}],"isError":true}`))
	f.Add([]byte(`{"content":[{"type":"resource_link","uri":"file:///x","name":"n","description":"d"},{"type":"resource","resource":{"uri":"u","blob":"AA=="}}]}`))
	f.Add([]byte(`{"content":[{"type":"resource","resource":{"uri":"u","text":"t"}}],"structuredContent":{"a":[1,2]}}`))
	f.Add([]byte(`{"content":[],"structuredContent":null}`))
	f.Add([]byte(`{"content":[{"type":"nope"}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var r sdk.CallToolResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return // the SDK refuses it as a protocol error
		}
		o := Outcome(newResult(&r), nil)
		if o.Output == "" {
			t.Fatal("the model is told nothing")
		}
		for _, c := range r.Content {
			if tc, ok := c.(*sdk.TextContent); ok && !strings.Contains(o.Output, tc.Text) {
				t.Fatalf("text %q lost from %q", tc.Text, o.Output)
			}
		}
		if o.IsError != r.IsError {
			t.Fatalf("is_error %t recorded as %t", r.IsError, o.IsError)
		}
		o.CallID = "c1"
		rec, err := events.NewRecord(1, 1, "c1", &o)
		if err != nil {
			t.Fatalf("the outcome cannot be journaled: %v", err)
		}
		body, err := rec.Decode()
		if err != nil {
			t.Fatalf("the journaled outcome does not decode: %v", err)
		}
		if got, ok := body.(*events.ExecOutcome); !ok || got.Output != o.Output || got.Structured != o.Structured {
			t.Fatalf("the journal changed the outcome: %+v, want %+v", body, o)
		}
	})
}
