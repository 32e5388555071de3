package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// responsesStream writes one Responses API answer as server-sent events, in
// the real wire format: every event carries its type and a sequence number,
// and is flushed so that a client sees the stream as the real API sends it.
// The loopback servers of these tests share it so that the format is
// written in one place.
type responsesStream struct {
	w   http.ResponseWriter
	id  string
	seq int
}

// newResponsesStream starts an event stream on w for the response id.
func newResponsesStream(w http.ResponseWriter, id string) *responsesStream {
	w.Header().Set("Content-Type", "text/event-stream")
	return &responsesStream{w: w, id: id}
}

// send writes one event of type typ with payload.
func (s *responsesStream) send(typ string, payload map[string]any) {
	payload["type"], payload["sequence_number"] = typ, s.seq
	s.seq++
	data, _ := json.Marshal(payload)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", typ, data)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// response is the response object of the stream with status and output
// items, as response.created, response.completed and response.failed
// carry it.
func (s *responsesStream) response(status string, output any) map[string]any {
	return map[string]any{"id": s.id, "object": "response", "created_at": 1700000000, "status": status,
		"error": nil, "incomplete_details": nil, "instructions": nil, "metadata": map[string]any{}, "model": "m",
		"output": output, "parallel_tool_calls": true, "temperature": 1.0, "tool_choice": "auto", "tools": []any{}, "top_p": 1.0,
		"usage": map[string]any{"input_tokens": 50, "input_tokens_details": map[string]any{"cached_tokens": 10},
			"output_tokens": 7, "output_tokens_details": map[string]any{"reasoning_tokens": 3}, "total_tokens": 57}}
}
