package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// messageServer speaks the Responses API: it answers every request with
// the message "answer N" and keeps each request's body.
type messageServer struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (s *messageServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	n := len(s.bodies)
	s.mu.Unlock()
	if r.URL.Path != "/v1/responses" {
		http.Error(w, `{"error":{"message":"bad path","type":"invalid_request_error"}}`, http.StatusNotFound)
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
	text := fmt.Sprintf("answer %d", n)
	msg := map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	resp := func(status string, output []any) map[string]any {
		return map[string]any{"id": fmt.Sprintf("resp_%d", n), "object": "response", "created_at": 1700000000, "status": status,
			"error": nil, "incomplete_details": nil, "instructions": nil, "metadata": map[string]any{}, "model": "m",
			"output": output, "parallel_tool_calls": true, "temperature": 1.0, "tool_choice": "auto", "tools": []any{}, "top_p": 1.0,
			"usage": map[string]any{"input_tokens": 50, "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": 3, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 53}}
	}
	send("response.created", map[string]any{"response": resp("in_progress", []any{})})
	send("response.output_text.delta", map[string]any{"output_index": 0, "item_id": "msg_1", "content_index": 0, "delta": text, "logprobs": []any{}})
	send("response.output_item.done", map[string]any{"output_index": 0, "item": msg})
	send("response.completed", map[string]any{"response": resp("completed", []any{msg})})
}

// sentRequest is what one request told the model about its policy: the
// instructions and the text of its developer messages.
type sentRequest struct {
	instructions string
	developer    []string
}

func (s *messageServer) requests(t *testing.T) []sentRequest {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []sentRequest
	for i, b := range s.bodies {
		var body struct {
			Instructions string `json:"instructions"`
			Input        []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"input"`
		}
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatalf("request %d: %v\n%s", i+1, err, b)
		}
		r := sentRequest{instructions: body.Instructions}
		for _, in := range body.Input {
			if in.Role != "developer" {
				continue
			}
			var text string
			if err := json.Unmarshal(in.Content, &text); err != nil {
				text = string(in.Content) // content parts: their JSON holds the text
			}
			r.developer = append(r.developer, text)
		}
		out = append(out, r)
	}
	return out
}

// TestChatApprovalsTellsTheModel drives the built binary's UI on a pty
// against a Responses API server: after /approvals, the next request (and
// every one after it, a resumed session's too) carries the developer
// message naming the new policy, while the instructions still name the
// starting one; the journal then verify-replays (the same requests, the
// same digests) with no server at all.
func TestChatApprovalsTellsTheModel(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	srv := &messageServer{}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	env := []string{"OPENAI_BASE_URL=" + hs.URL + "/v1", "OPENAI_API_KEY=sk-chat-policy"}
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	r := startChatEnv(t, bin, env, "chat", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "untrusted", "-s", "workspace-write")
	r.scr.waitFor(t, 0, "approvals untrusted")
	at := r.scr.mark()
	r.typeLine("first")
	r.idleAfter(at, "answer 1")
	at = r.scr.mark()
	r.typeLine("/approvals on-request")
	r.scr.waitFor(t, at, "approval policy is now on-request")
	at = r.scr.mark()
	r.typeLine("second")
	r.idleAfter(at, "answer 2")
	r.typeLine("/quit")
	code, out := r.wait()
	if code != 0 {
		t.Fatalf("chat exited %d:\n%s", code, out)
	}
	m := resumeHintRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no resume hint at quit:\n%s", out)
	}
	id := m[1]

	r = startChatEnv(t, bin, env, "chat", "--home", home, "--resume", id)
	r.scr.waitFor(t, 0, "approvals on-request")
	at = r.scr.mark()
	r.typeLine("third")
	r.idleAfter(at, "answer 3")
	r.keys("\x03")
	if code, out := r.wait(); code != 0 {
		t.Fatalf("resumed chat exited %d:\n%s", code, out)
	}

	reqs := srv.requests(t)
	if len(reqs) != 3 {
		t.Fatalf("the server got %d requests, want 3", len(reqs))
	}
	for i, req := range reqs {
		if !strings.Contains(req.instructions, "Approval policy: untrusted.") {
			t.Errorf("request %d: the instructions do not state the starting policy:\n%s", i+1, req.instructions)
		}
	}
	if len(reqs[0].developer) != 0 {
		t.Errorf("the request before /approvals carried developer messages %q", reqs[0].developer)
	}
	for i, req := range reqs[1:] {
		if len(req.developer) != 1 || !strings.Contains(req.developer[0], "<permissions instructions>") ||
			!strings.Contains(req.developer[0], "Approval policy: on-request.") || !strings.Contains(req.developer[0], "changed from untrusted to on-request") {
			t.Errorf("request %d after /approvals: developer messages %q; want one naming on-request", i+2, req.developer)
		}
	}

	rep := exec.Command(bin, "replay", "--home", home, id)
	rep.Env = append(os.Environ(), "OPENAI_API_KEY=sk-chat-policy", "OPENAI_BASE_URL=http://127.0.0.1:1/v1") // no model: replay must not ask one
	if out, err := rep.CombinedOutput(); err != nil || !strings.Contains(string(out), "replay ok") {
		t.Fatalf("replay: %v\n%s", err, out)
	}
}
