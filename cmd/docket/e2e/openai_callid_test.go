package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// sseResponses is a loopback server speaking the Responses API's
// server-sent events: each request is answered with the next of outputs
// (the output items of one response), and every request body is kept.
type sseResponses struct {
	mu      sync.Mutex
	outputs [][]map[string]any
	bodies  []string
}

func (s *sseResponses) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, string(body))
	s.mu.Unlock()
	if r.URL.Path != "/v1/responses" || n >= len(s.outputs) {
		http.Error(w, `{"error":{"message":"unexpected request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	seq := 0
	send := func(typ string, payload map[string]any) {
		payload["type"], payload["sequence_number"] = typ, seq
		seq++
		b, _ := json.Marshal(payload)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		w.(http.Flusher).Flush()
	}
	resp := func(status string, output []map[string]any) map[string]any {
		return map[string]any{"id": fmt.Sprintf("resp_%d", n), "object": "response", "created_at": 1700000000, "status": status,
			"error": nil, "incomplete_details": nil, "instructions": nil, "metadata": map[string]any{}, "model": "m",
			"output": output, "parallel_tool_calls": true, "temperature": 1.0, "tool_choice": "auto", "tools": []any{}, "top_p": 1.0,
			"usage": map[string]any{"input_tokens": 50, "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": 7, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 57}}
	}
	send("response.created", map[string]any{"response": resp("in_progress", []map[string]any{})})
	for i, it := range s.outputs[n] {
		send("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	send("response.completed", map[string]any{"response": resp("completed", s.outputs[n])})
}

// shellFunctionCall is a shell function call whose call_id may be empty.
func shellFunctionCall(id, callID string, argv ...string) map[string]any {
	args, _ := json.Marshal(map[string]any{"command": argv})
	return map[string]any{"type": "function_call", "id": id, "call_id": callID, "name": "shell", "arguments": string(args), "status": "completed"}
}

// A response with a call that has no call_id, through the OpenAI provider:
// that call is refused and the model told so, the other call of the
// response runs, and the turn goes on to the model's answer, as with the
// scripted model.
func TestAnEmptyCallIDThroughTheOpenAIProviderIsRefusedAlone(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	srv := &sseResponses{outputs: [][]map[string]any{
		{shellFunctionCall("fc_1", "", "touch", "refused"), shellFunctionCall("fc_2", "call_ok", "touch", "ran")},
		{assistantMessage("finished")},
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	r := docket(t, []string{"OPENAI_BASE_URL=" + hs.URL + "/v1", "OPENAI_API_KEY=sk-e2e", "DOCKET_HOME=" + home},
		"exec", "--skip-git-repo-check", "-C", ws, "-s", "workspace-write", "-a", "never", "go")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "finished" {
		t.Fatalf("exit %d, stdout %q; want 0 and the model's answer\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "refused")); err == nil {
		t.Error("the call without a call_id ran")
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err != nil {
		t.Errorf("the valid call of the same response did not run: %v", err)
	}
	if !strings.Contains(r.stderr, "refused tool call 1 of the model's response: it has no call_id") {
		t.Errorf("the output does not say which call was refused:\n%s", r.stderr)
	}
	if len(srv.bodies) != 2 {
		t.Fatalf("%d requests, want 2", len(srv.bodies))
	}
	// The second request tells the model about the refusal and carries no
	// item with an empty call_id, which the API would reject.
	second := srv.bodies[1]
	if !strings.Contains(second, "was not run: it has no call_id") {
		t.Errorf("the model is not told about the refused call:\n%s", second)
	}
	if strings.Contains(second, `"call_id":""`) {
		t.Errorf("the second request sends an empty call_id:\n%s", second)
	}
	// Audit and verify replay read the session as the scripted model's.
	if r := docket(t, nil, "replay", "--home", home, "last"); r.code != 0 {
		t.Errorf("replay: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
