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

// codexCLI is the Codex CLI installed for the tests
// (scripts/install-codex.sh), or "" when it is not. Under CI (which installs
// it) a missing CLI fails the test instead of skipping it.
func codexCLI(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", ".cache", "codex", "node_modules", ".bin", "codex"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the Codex CLI is not installed at %s under CI: run scripts/install-codex.sh", p)
		}
		return ""
	}
	return p
}

// answerServer is a loopback Responses API: every request is answered, in
// the real server-sent-event wire format, with one assistant message.
type answerServer struct {
	answer string
	mu     sync.Mutex
	bodies []string
}

func (s *answerServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(body))
	s.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer sk-codex-e2e" {
		http.Error(w, `{"error":{"message":"bad path or key","type":"invalid_request_error"}}`, http.StatusUnauthorized)
		return
	}
	st := newResponsesStream(w, "resp_codex")
	send, resp := st.send, st.response
	msg := map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": s.answer, "annotations": []any{}}}}
	send("response.created", map[string]any{"response": resp("in_progress", []any{})})
	send("response.output_item.added", map[string]any{"output_index": 0, "item": msg})
	send("response.output_text.delta", map[string]any{"output_index": 0, "item_id": "msg_1", "content_index": 0, "delta": s.answer, "logprobs": []any{}})
	send("response.output_item.done", map[string]any{"output_index": 0, "item": msg})
	send("response.completed", map[string]any{"response": resp("completed", []any{msg})})
}

// TestAgentsRunDrivesTheRealCodexCLI runs the real Codex CLI (codex exec
// --json) as an agent, under Docket's sandbox with the network on, against
// a loopback Responses server, beside the claude stand-in: both answer,
// they agree, the consensus is valid, and the session verify-replays.
func TestAgentsRunDrivesTheRealCodexCLI(t *testing.T) {
	t.Parallel()
	codex := codexCLI(t)
	if codex == "" {
		t.Skip("the Codex CLI is not installed: scripts/install-codex.sh")
	}
	srv := &answerServer{answer: "The answer is 42."}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	home, ws := t.TempDir(), t.TempDir()
	codexHome := filepath.Join(ws, "codex-home")
	if err := os.Mkdir(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`
[sandbox_workspace_write]
exclude_slash_tmp = true
exclude_tmpdir_env_var = true

[agents.codex]
command = %q
args = ["exec", "--json", "--skip-git-repo-check", "-s", "read-only", "-m", "test-model",
  "-c", "model_provider=\"loopback\"", "-c", "model_providers.loopback.name=\"loopback\"",
  "-c", "model_providers.loopback.base_url=\"%s/v1\"", "-c", "model_providers.loopback.wire_api=\"responses\"",
  "-c", "model_providers.loopback.env_key=\"CODEX_E2E_KEY\"", "{prompt}"]
format = "codex-jsonl"
timeout_sec = 300
env = { CODEX_HOME = %q, CODEX_E2E_KEY = "sk-codex-e2e" }

[agents.claude]
command = %q
args = ["-p", "{prompt}"]
format = "stream-json"
timeout_sec = 120
env = { CLAUDE_STANDIN_API_KEY = "k", STANDIN_ANSWER = "the answer is 42" }
`, codex, ts.URL, codexHome, filepath.Join(standins(t), "claude"))
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	script := writeScript(t, `{"output":[{"type":"message","content":"Both say 42."}]}`)
	r := docket(t, nil, "agents", "run", "--home", home, "-C", ws, "--skip-git-repo-check", "-s", "workspace-write",
		"--model-script", script, "--json", "what is six times seven?")
	var rep agentsReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("exit %d, stdout is not the report: %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	if r.code != 0 || !rep.Valid || rep.statuses() != "claude=finished codex=finished" {
		t.Fatalf("exit %d, valid %v, %s\n%s\n%s", r.code, rep.Valid, rep.statuses(), r.stdout, r.stderr)
	}
	if rep.Agents[1].Answer != "The answer is 42." {
		t.Errorf("codex's answer %q, want the loopback server's", rep.Agents[1].Answer)
	}
	if len(rep.Groups) != 1 || rep.Synthesis != "Both say 42." {
		t.Errorf("groups %v, synthesis %q", rep.Groups, rep.Synthesis)
	}
	srv.mu.Lock()
	asked := len(srv.bodies) > 0 && strings.Contains(srv.bodies[0], "what is six times seven?")
	srv.mu.Unlock()
	if !asked {
		t.Error("the loopback server was not asked the prompt: codex did not reach it")
	}
	r = docket(t, nil, "replay", "--home", home, rep.SessionID)
	if r.code != 0 || !strings.Contains(r.stdout, "replay ok") {
		t.Errorf("replay: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
