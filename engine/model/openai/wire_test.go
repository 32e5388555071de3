package openai_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/responses"
)

// This file is the fake server's wire: Responses API server-sent events and
// Chat Completions chunks, each checked against openai-go's own types (every
// field the SDK marks api:"required" must be present) so the fake cannot
// drift from the real format unnoticed.

// sse writes one server-sent event stream.
type sse struct {
	t   testing.TB
	w   http.ResponseWriter
	seq int
}

func newSSE(t testing.TB, w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	return &sse{t: t, w: w}
}

// event sends a Responses API event; payload gets type and sequence_number.
func (s *sse) event(typ string, payload map[string]any) {
	s.t.Helper()
	body := map[string]any{"type": typ, "sequence_number": s.seq}
	for k, v := range payload {
		body[k] = v
	}
	s.seq++
	data, err := json.Marshal(body)
	if err != nil {
		s.t.Errorf("marshal %s: %v", typ, err)
		return
	}
	if err := checkResponsesEvent(data); err != nil {
		s.t.Errorf("fake server sent an unfaithful %s event: %v", typ, err)
	}
	s.raw(fmt.Sprintf("event: %s\ndata: %s\n\n", typ, data))
}

// chunk sends a Chat Completions chunk.
func (s *sse) chunk(c map[string]any) {
	s.t.Helper()
	body := map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": "test-model", "choices": []any{}}
	for k, v := range c {
		body[k] = v
	}
	data, err := json.Marshal(body)
	if err != nil {
		s.t.Errorf("marshal chunk: %v", err)
		return
	}
	var ch sdk.ChatCompletionChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		s.t.Errorf("chunk does not decode: %v", err)
	} else if err := checkRequired("chunk", reflect.ValueOf(ch), 0); err != nil {
		s.t.Errorf("fake server sent an unfaithful chunk: %v", err)
	}
	s.raw("data: " + string(data) + "\n\n")
}

func (s *sse) done() { s.raw("data: [DONE]\n\n") }

func (s *sse) raw(text string) {
	_, _ = s.w.Write([]byte(text))
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// checkResponsesEvent decodes one event into its openai-go variant and checks
// its required fields, recursively.
func checkResponsesEvent(data []byte) error {
	var ev responses.ResponseStreamEventUnion
	if err := json.Unmarshal(data, &ev); err != nil {
		return err
	}
	v := ev.AsAny()
	if v == nil {
		return fmt.Errorf("unknown event type %q", ev.Type)
	}
	return checkRequired(ev.Type, reflect.ValueOf(v), 0)
}

var fieldType = reflect.TypeOf(respjson.Field{})

// checkRequired walks a decoded SDK value: every api:"required" field must be
// present in the JSON (null allowed), and present objects are walked in turn;
// unions are walked through their AsAny variant.
func checkRequired(path string, v reflect.Value, depth int) error {
	if depth > 12 {
		return nil
	}
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if err := checkRequired(fmt.Sprintf("%s[%d]", path, i), v.Index(i), depth+1); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
	default:
		return nil
	}
	if m := v.MethodByName("AsAny"); m.IsValid() && m.Type().NumIn() == 0 {
		out := m.Call(nil)[0]
		if out.IsNil() {
			return nil
		}
		return checkRequired(path, out, depth+1)
	}
	meta := v.FieldByName("JSON")
	if !meta.IsValid() || meta.Kind() != reflect.Struct {
		return nil
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Name == "JSON" {
			continue
		}
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		mf := meta.FieldByName(f.Name)
		if !mf.IsValid() || mf.Type() != fieldType {
			continue
		}
		raw := mf.Interface().(respjson.Field).Raw()
		if raw == "" {
			if strings.Contains(f.Tag.Get("api"), "required") {
				return fmt.Errorf("%s.%s: required field missing", path, name)
			}
			continue
		}
		if raw[0] == '{' || raw[0] == '[' {
			if err := checkRequired(path+"."+name, v.Field(i), depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// Builders for Responses API objects in the shapes the API sends.

func fullResponse(id, status string, output []any, usage map[string]any) map[string]any {
	if output == nil {
		output = []any{}
	}
	r := map[string]any{
		"id": id, "object": "response", "created_at": 1700000000, "status": status,
		"access_programs": map[string]any{"cyber": "standard"},
		"error":           nil, "incomplete_details": nil, "instructions": nil, "metadata": map[string]any{},
		"model": "test-model", "output": output, "parallel_tool_calls": true, "temperature": 1.0,
		"tool_choice": "auto", "tools": []any{}, "top_p": 1.0,
	}
	if usage != nil {
		r["usage"] = usage
	}
	return r
}

func usageJSON(in, cached, out, reasoning int) map[string]any {
	return map[string]any{
		"input_tokens":          in,
		"input_tokens_details":  map[string]any{"cached_tokens": cached, "cache_write_tokens": 0},
		"output_tokens":         out,
		"output_tokens_details": map[string]any{"reasoning_tokens": reasoning},
		"total_tokens":          in + out,
	}
}

func messageItem(id, status, text string) map[string]any {
	content := []any{}
	if status == "completed" {
		content = append(content, map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}})
	}
	return map[string]any{"type": "message", "id": id, "role": "assistant", "status": status, "content": content}
}

func functionCallItem(id, callID, name, args, status string) map[string]any {
	return map[string]any{"type": "function_call", "id": id, "call_id": callID, "name": name, "arguments": args, "status": status}
}

func customCallItem(id, callID, name, input string) map[string]any {
	return map[string]any{"type": "custom_tool_call", "id": id, "call_id": callID, "name": name, "input": input}
}

func reasoningItem(id string, summary ...string) map[string]any {
	parts := []any{}
	for _, s := range summary {
		parts = append(parts, map[string]any{"type": "summary_text", "text": s})
	}
	return map[string]any{"type": "reasoning", "id": id, "summary": parts}
}

// hits counts requests and keeps their bodies.
type hits struct {
	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
}

func (h *hits) add(r *http.Request, body []byte) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.bodies = append(h.bodies, body)
	h.headers = append(h.headers, r.Header.Clone())
	return len(h.bodies)
}

func (h *hits) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.bodies)
}

func (h *hits) body(i int) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bodies[i]
}

func (h *hits) header(i int) http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.headers[i]
}

func TestWireCheckerCatchesUnfaithfulEvents(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"delta without item_id", `{"type":"response.output_text.delta","sequence_number":1,"output_index":0,"content_index":0,"delta":"x","logprobs":[]}`, "item_id"},
		{"completed response without output", `{"type":"response.completed","sequence_number":1,"response":{"id":"r","object":"response","created_at":1,"status":"completed","error":null,"incomplete_details":null,"instructions":null,"metadata":{},"model":"m","parallel_tool_calls":true,"temperature":1,"tool_choice":"auto","tools":[],"top_p":1,"access_programs":{"cyber":"standard"}}}`, "output"},
		{"function call item without call_id", `{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"function_call","id":"fc","name":"shell","arguments":""}}`, "call_id"},
		{"unknown event type", `{"type":"response.telepathy","sequence_number":1}`, "unknown event type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkResponsesEvent([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one naming %q", err, tc.want)
			}
		})
	}
}
