package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/openai"
	"github.com/docket-engine/docket/events"
)

func shellCallJSON() map[string]any {
	return map[string]any{"type": "shell_call", "id": "sh_1", "call_id": "call_s", "status": "completed",
		"action":      map[string]any{"commands": []any{"ls", "pwd"}, "timeout_ms": 5000, "max_output_length": 2000},
		"environment": map[string]any{"type": "local"}}
}

func patchCallJSON() map[string]any {
	return map[string]any{"type": "apply_patch_call", "id": "ap_1", "call_id": "call_p", "status": "completed",
		"operation": map[string]any{"type": "update_file", "path": "a.txt", "diff": "@@\n-a\n+b\n"}}
}

// The Responses API's own shell and apply_patch tools: offered by type,
// their calls read as items of their own, and their results sent back as
// shell_call_output and apply_patch_call_output, through openai-go's types.
func TestResponsesNativeShellAndApplyPatchRoundTrip(t *testing.T) {
	srv, h := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) {
		s := newSSE(t, w)
		out := []any{shellCallJSON(), patchCallJSON()}
		s.event("response.created", map[string]any{"response": fullResponse("resp_n", "in_progress", nil, nil)})
		for i, it := range out {
			s.event("response.output_item.added", map[string]any{"output_index": i, "item": it})
			s.event("response.output_item.done", map[string]any{"output_index": i, "item": it})
		}
		s.event("response.completed", map[string]any{"response": fullResponse("resp_n", "completed", out, usageJSON(10, 0, 5, 0))})
	})
	p, _ := newProvider(t, srv, openai.WireResponses, nil)
	req := baseRequest()
	req.Tools = []model.ToolSpec{{Name: "shell_call", Kind: model.ToolShell}, {Name: "apply_patch_call", Kind: model.ToolApplyPatch}}
	resp, err := p.Respond(context.Background(), req, nil)
	if err != nil {
		t.Fatalf("Respond: %v", err)
	}
	assertItems(t, resp.Items, []events.Item{
		{Type: events.ItemShellCall, ID: "sh_1", CallID: "call_s", Name: "shell", Arguments: `{"commands":["ls","pwd"],"timeout_ms":5000,"max_output_length":2000}`},
		{Type: events.ItemApplyPatchCall, ID: "ap_1", CallID: "call_p", Name: "apply_patch", Arguments: `{"type":"update_file","path":"a.txt","diff":"@@\n-a\n+b\n"}`},
	})
	var first struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(h.body(0), &first); err != nil {
		t.Fatal(err)
	}
	if len(first.Tools) != 2 || first.Tools[0]["type"] != "shell" || first.Tools[1]["type"] != "apply_patch" {
		t.Fatalf("tools sent: %v", first.Tools)
	}
	// The next request carries the calls and their outputs back.
	req.Items = append(req.Items, resp.Items...)
	req.Items = append(req.Items,
		events.Item{Type: events.ItemShellCallOutput, CallID: "call_s", Output: `[{"stdout":"a.txt\n","stderr":"","outcome":{"type":"exit","exit_code":0}}]`},
		events.Item{Type: events.ItemApplyPatchCallOutput, CallID: "call_p", Output: "Done!", Status: "completed"})
	if _, err := p.Respond(context.Background(), req, nil); err != nil {
		t.Fatalf("second Respond: %v", err)
	}
	var second struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(h.body(1), &second); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, it := range second.Input {
		typ, _ := it["type"].(string)
		if typ == "" {
			typ = "message" // an easy input message carries only role and content
		}
		types = append(types, typ)
	}
	if got := strings.Join(types, " "); got != "message shell_call apply_patch_call shell_call_output apply_patch_call_output" {
		t.Fatalf("input types %q\n%s", got, h.body(1))
	}
	so, _ := json.Marshal(second.Input[3])
	if !strings.Contains(string(so), `"outcome":{"exit_code":0,"type":"exit"}`) || !strings.Contains(string(so), `"stdout":"a.txt\n"`) {
		t.Fatalf("shell_call_output: %s", so)
	}
	if ap := second.Input[4]; ap["status"] != "completed" || ap["output"] != "Done!" {
		t.Fatalf("apply_patch_call_output: %v", ap)
	}
}

func TestResponsesRefusesAMalformedNativeItem(t *testing.T) {
	srv, _ := serve(t, "/v1/responses", func(w http.ResponseWriter, r *http.Request, n int) { okTurn(t, w) })
	p, _ := newProvider(t, srv, openai.WireResponses, nil)
	req := baseRequest()
	req.Items = append(req.Items, events.Item{Type: events.ItemShellCallOutput, CallID: "c", Output: "not json"})
	if _, err := p.Respond(context.Background(), req, nil); err == nil || !strings.Contains(err.Error(), "shell_call_output") {
		t.Fatalf("err %v", err)
	}
}
