package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
	srv, url := newScriptedResponses(t,
		turnScript{items: []map[string]any{shellFunctionCall("fc_1", "", "touch", "refused"), shellFunctionCall("fc_2", "call_ok", "touch", "ran")}},
		turnScript{items: []map[string]any{assistantMessage("finished")}},
	)
	r := docket(t, []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=sk-e2e", "DOCKET_HOME=" + home},
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
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, req := range reqs {
		if req.Path != "/v1/responses" {
			t.Errorf("request %d went to %s, want /v1/responses", i+1, req.Path)
		}
	}
	// The second request tells the model about the refusal and carries no
	// item with an empty call_id, which the API would reject.
	second := reqs[1].Raw
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
