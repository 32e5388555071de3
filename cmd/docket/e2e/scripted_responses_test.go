package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// turnScript is one scripted answer of scriptedResponses: output items
// streamed and completed, a stream that fails with failMsg, or an HTTP
// error status with a JSON body.
type turnScript struct {
	items   []map[string]any
	failMsg string
	status  int
}

// seenRequest is one request a scriptedResponses server received.
type seenRequest struct {
	Path, RawQuery string
	Header         http.Header
	Body           map[string]any
	// Raw is the body as sent, for what a decoded map would hide (an
	// empty string kept as a key).
	Raw string
}

// scriptedResponses is a loopback Responses API that answers each POST
// /v1/responses with the next turn of its script, in the real
// server-sent-event format, so that Docket and the Codex CLI can be driven
// by the same answers. Past the script it answers 500.
type scriptedResponses struct {
	mu    sync.Mutex
	turns []turnScript
	seen  []seenRequest
}

func newScriptedResponses(t *testing.T, turns ...turnScript) (*scriptedResponses, string) {
	t.Helper()
	s := &scriptedResponses{turns: turns}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs.URL + "/v1"
}

func (s *scriptedResponses) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenRequest(nil), s.seen...)
}

func (s *scriptedResponses) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	s.mu.Lock()
	n := len(s.seen)
	s.seen = append(s.seen, seenRequest{Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body, Raw: string(b)})
	var turn *turnScript
	if n < len(s.turns) {
		turn = &s.turns[n]
	}
	s.mu.Unlock()
	if turn == nil {
		http.Error(w, `{"error":{"message":"script exhausted","type":"server_error"}}`, http.StatusInternalServerError)
		return
	}
	if turn.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(turn.status)
		fmt.Fprintf(w, `{"error":{"message":"bad request from the script","type":"invalid_request_error","code":"bad"}}`)
		return
	}
	st := newResponsesStream(w, fmt.Sprintf("resp_%d", n))
	st.send("response.created", map[string]any{"response": st.response("in_progress", []map[string]any{})})
	for i, it := range turn.items {
		st.send("response.output_item.added", map[string]any{"output_index": i, "item": it})
		st.send("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	if turn.failMsg != "" {
		r := st.response("failed", turn.items)
		r["error"] = map[string]any{"code": "server_error", "message": turn.failMsg}
		st.send("response.failed", map[string]any{"response": r})
		return
	}
	st.send("response.completed", map[string]any{"response": st.response("completed", turn.items)})
}

// assistantMessage is a completed assistant message item.
func assistantMessage(text string) map[string]any {
	return map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
}

// patchCall is an apply_patch custom tool call.
func patchCall(id, patch string) map[string]any {
	return map[string]any{"type": "custom_tool_call", "id": "ctc_" + id, "call_id": id, "name": "apply_patch", "input": patch, "status": "completed"}
}

// functionCall is a function call with JSON arguments.
func functionCall(id, name, args string) map[string]any {
	return map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": name, "arguments": args, "status": "completed"}
}

// toolOutputs are the outputs of tool calls a request carried, by call id.
func toolOutputs(req seenRequest) map[string]string {
	out := map[string]string{}
	input, _ := req.Body["input"].([]any)
	for _, it := range input {
		m, _ := it.(map[string]any)
		switch m["type"] {
		case "function_call_output", "custom_tool_call_output":
			id, _ := m["call_id"].(string)
			switch o := m["output"].(type) {
			case string:
				out[id] = o
			default:
				b, _ := json.Marshal(o)
				out[id] = string(b)
			}
		}
	}
	return out
}
