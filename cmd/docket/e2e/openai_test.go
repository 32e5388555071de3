package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// responsesServer speaks the Responses API's server-sent events: the first
// request is refused once with 429 and Retry-After, then answered with a
// shell call; the second, which must carry the call's output, with a message.
type responsesServer struct {
	mu     sync.Mutex
	hits   int
	bodies []string
}

func (s *responsesServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.hits++
	n := s.hits
	s.bodies = append(s.bodies, string(body))
	s.mu.Unlock()
	if r.URL.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer sk-e2e" {
		http.Error(w, `{"error":{"message":"bad path or key","type":"invalid_request_error"}}`, http.StatusUnauthorized)
		return
	}
	if n == 1 {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"slow down","type":"rate_limit_error","code":"rate_limit_exceeded"}}`)
		return
	}
	st := newResponsesStream(w, "resp")
	send, resp := st.send, st.response
	send("response.created", map[string]any{"response": resp("in_progress", []any{})})
	if !strings.Contains(string(body), "function_call_output") {
		args := `{"command":["bash","-lc","echo from-the-model > made.txt"]}`
		item := func(a, status string) map[string]any {
			return map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "shell", "arguments": a, "status": status}
		}
		send("response.output_item.added", map[string]any{"output_index": 0, "item": item("", "in_progress")})
		for i := 0; i < len(args); i += 5 {
			send("response.function_call_arguments.delta", map[string]any{"output_index": 0, "item_id": "fc_1", "delta": args[i:min(i+5, len(args))]})
		}
		send("response.output_item.done", map[string]any{"output_index": 0, "item": item(args, "completed")})
		send("response.completed", map[string]any{"response": resp("completed", []any{item(args, "completed")})})
		return
	}
	msg := map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": "made it", "annotations": []any{}}}}
	send("response.output_text.delta", map[string]any{"output_index": 0, "item_id": "msg_1", "content_index": 0, "delta": "made it", "logprobs": []any{}})
	send("response.output_item.done", map[string]any{"output_index": 0, "item": msg})
	send("response.completed", map[string]any{"response": resp("completed", []any{msg})})
}

func TestExecAgainstAResponsesServerRunsAToolCallInTheSandbox(t *testing.T) {
	t.Parallel()
	srv := &responsesServer{}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	home, ws := t.TempDir(), t.TempDir()
	r := docket(t, []string{"OPENAI_BASE_URL=" + hs.URL + "/v1", "OPENAI_API_KEY=sk-e2e", "DOCKET_HOME=" + home},
		"exec", "--skip-git-repo-check", "-C", ws, "-s", "workspace-write", "-a", "on-request", "make a file")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if strings.TrimSpace(r.stdout) != "made it" {
		t.Fatalf("final message %q", r.stdout)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "made.txt")); err != nil || string(b) != "from-the-model\n" {
		t.Fatalf("made.txt %q %v", b, err)
	}
	if srv.hits != 3 || !strings.Contains(srv.bodies[2], "from-the-model") {
		t.Fatalf("%d requests; the last did not carry the command's output", srv.hits)
	}
	sf, err := journal.Find(home, "last")
	if err != nil {
		t.Fatal(err)
	}
	var attempts []int
	var sandboxed bool
	readAllFrom(t, sf.Path, func(b any) {
		switch v := b.(type) {
		case *events.ModelResponse:
			attempts = append(attempts, v.Attempts)
		case *events.ExecStarted:
			sandboxed = v.Sandbox.Sandboxed()
		}
	})
	if len(attempts) != 2 || attempts[0] != 2 || attempts[1] != 1 {
		t.Fatalf("journaled attempts %v: the retried request must be journaled once with its attempt count", attempts)
	}
	if !sandboxed {
		t.Fatal("the model's command did not run in the sandbox")
	}
}

func readAllFrom(t *testing.T, path string, fn func(any)) {
	t.Helper()
	for _, r := range readJournal(t, path) {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		fn(b)
	}
}
