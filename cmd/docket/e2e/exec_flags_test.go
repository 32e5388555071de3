package e2e

import (
	"encoding/base64"
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

// TestExecRefusesAWorkspaceOutsideGit: as Codex's exec, docket exec
// refuses a workspace outside a git repository unless told, and starts no
// session when it refuses.
func TestExecRefusesAWorkspaceOutsideGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git to make a repository")
	}
	cases := []struct {
		name     string
		gitInit  bool
		skip     bool
		trusted  bool
		wantCode int
	}{
		{"outside a repository", false, false, false, 2},
		{"outside a repository with --skip-git-repo-check", false, true, false, 0},
		{"inside a repository", true, false, false, 0},
		{"a trusted project outside a repository", false, false, true, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			if tc.gitInit {
				if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
					t.Fatalf("git init: %v %s", err, out)
				}
			}
			if tc.trusted {
				trust := fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", ws)
				if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(trust), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"exec", "--home", home, "-C", ws, "--model-script", replies(t, "ok")}
			if tc.skip {
				args = append(args, "--skip-git-repo-check")
			}
			r := docket(t, nil, append(args, "hi")...)
			if r.code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.wantCode, r.stderr)
			}
			n := len(sessionIDs(t, home))
			if tc.wantCode == 2 && (n != 0 || !strings.Contains(r.stderr, "--skip-git-repo-check")) {
				t.Fatalf("refused with %d sessions left and stderr %q", n, r.stderr)
			}
		})
	}
}

// TestExecWithoutAPromptSaysHowToGiveOne covers a missing and an empty
// prompt: exit 2 and the two ways to give one.
func TestExecWithoutAPromptSaysHowToGiveOne(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	for _, args := range [][]string{{}, {"  "}} {
		r := docket(t, nil, append([]string{"exec", "--skip-git-repo-check", "--home", home, "-C", ws, "--model-script", replies(t, "x")}, args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "docket exec -") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("args %q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// recordingServer answers every Responses request with one message and
// keeps the request bodies.
type recordingServer struct {
	mu     sync.Mutex
	bodies []string
	reply  string
}

// snapshot returns the bodies received so far.
func (s *recordingServer) snapshot() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

func (s *recordingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(body))
	s.mu.Unlock()
	msg := map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": s.reply, "annotations": []any{}}}}
	st := newResponsesStream(w, "resp")
	st.send("response.output_item.done", map[string]any{"output_index": 0, "item": msg})
	st.send("response.completed", map[string]any{"response": st.response("completed", []any{msg})})
}

// pngBytes is a 1x1 PNG.
func pngBytes(t *testing.T) []byte {
	b, err := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExecSendsImagesAndTheOutputSchemaAndWritesTheLastMessage runs exec
// against a Responses server: -i sends an input_image data URL with the
// prompt, --output-schema sends text.format json_schema, -o writes the final
// message to a file.
func TestExecSendsImagesAndTheOutputSchemaAndWritesTheLastMessage(t *testing.T) {
	t.Parallel()
	srv := &recordingServer{reply: `{"answer":42}`}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	home, ws, dir := t.TempDir(), t.TempDir(), t.TempDir()
	img := filepath.Join(dir, "shot.png")
	schema := filepath.Join(dir, "schema.json")
	out := filepath.Join(dir, "last.txt")
	if err := os.WriteFile(img, pngBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"],"additionalProperties":false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"OPENAI_BASE_URL=" + hs.URL + "/v1", "OPENAI_API_KEY=sk-e2e", "DOCKET_HOME=" + home}
	r := docket(t, env, "exec", "--skip-git-repo-check", "-C", ws, "-i", img, "--output-schema", schema, "-o", out, "what is in the picture?")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	bodies := srv.snapshot()
	if len(bodies) != 1 {
		t.Fatalf("%d requests, want 1", len(bodies))
	}
	body := bodies[0]
	for _, want := range []string{`"type":"input_image"`, `"image_url":"data:image/png;base64,iVBORw0KGgo`, `"type":"input_text"`,
		`"format":{`, `"type":"json_schema"`, `"name":"codex_output_schema"`, `"strict":true`, `"answer":{"type":"integer"}`} {
		if !strings.Contains(body, want) {
			t.Errorf("request lacks %s:\n%s", want, body)
		}
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != `{"answer":42}` {
		t.Fatalf("-o file %q, %v", b, err)
	}

	// The image travels with the journal: a resumed session sends it again.
	r = docket(t, env, "exec", "resume", "--last", "-C", ws, "and now?")
	if bodies := srv.snapshot(); r.code != 0 || len(bodies) != 2 || !strings.Contains(bodies[1], "data:image/png;base64,") {
		t.Fatalf("resume: exit %d, %d requests; the resumed conversation lost the image\n%s", r.code, len(bodies), r.stderr)
	}
}

// TestExecRejectsBadImagesAndSchemasBeforeStarting: a file that is not an
// image, a schema that is not JSON, and a missing file are usage errors
// (exit 2) before any session or request.
func TestExecRejectsBadImagesAndSchemasBeforeStarting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notImage := filepath.Join(dir, "notes.png")
	badSchema := filepath.Join(dir, "schema.json")
	os.WriteFile(notImage, []byte("just text"), 0o644)
	os.WriteFile(badSchema, []byte(`{"type": "object",`), 0o644)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"text named .png", []string{"-i", notImage}, "not a png, jpeg, gif or webp image"},
		{"missing image", []string{"-i", filepath.Join(dir, "nope.png")}, "no such file"},
		{"schema not JSON", []string{"--output-schema", badSchema}, "not JSON"},
		{"bad color", []string{"--color", "sometimes"}, "want always, never or auto"},
		{"bypass with -s", []string{"--dangerously-bypass-approvals-and-sandbox", "-s", "read-only"}, "drop -a/-s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			args := append([]string{"exec", "--skip-git-repo-check", "--home", home, "-C", dir, "--model-script", replies(t, "x")}, tc.args...)
			r := docket(t, nil, append(args, "go")...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, tc.want)
			}
			if n := len(sessionIDs(t, home)); n != 0 {
				t.Fatalf("%d sessions started", n)
			}
		})
	}
}

// TestEphemeralKeepsNoJournal: the run works, nothing is left under the
// home, and stderr says what that costs.
func TestEphemeralKeepsNoJournal(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--ephemeral", "--home", home, "-C", ws, "--model-script", replies(t, "done"), "hi")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "done" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if ids := sessionIDs(t, home); len(ids) != 0 {
		t.Fatalf("sessions left: %v", ids)
	}
	if !strings.Contains(r.stderr, "cannot be resumed, audited or replayed") {
		t.Fatalf("stderr does not say what --ephemeral costs:\n%s", r.stderr)
	}
}

// TestColorFlag: --color always colours stderr without a terminal, never
// does not.
func TestColorFlag(t *testing.T) {
	t.Parallel()
	script := func(t *testing.T) string {
		return writeScript(t, `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["true"]}}]}`,
			`{"output":[{"type":"message","content":"ok"}]}`)
	}
	for _, tc := range []struct {
		mode string
		want bool
	}{{"always", true}, {"never", false}, {"auto", false}} {
		t.Run(tc.mode, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			r := docket(t, nil, "exec", "--skip-git-repo-check", "--color", tc.mode, "--home", home, "-C", ws, "-a", "never",
				"--model-script", script(t), "go")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if got := strings.Contains(r.stderr, "\x1b["); got != tc.want {
				t.Fatalf("colour %t, want %t:\n%q", got, tc.want, r.stderr)
			}
		})
	}
}

// TestAddDirIsWritable: under workspace-write a command cannot write a
// directory outside the workspace, and can once --add-dir names it.
func TestAddDirIsWritable(t *testing.T) {
	t.Parallel()
	for _, add := range []bool{false, true} {
		t.Run(fmt.Sprintf("add-dir=%t", add), func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			extra, err := os.MkdirTemp("/var/tmp", "docket-adddir-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(extra)
			target := filepath.Join(extra, "out.txt")
			script := writeScript(t, fmt.Sprintf(`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["bash","-c","echo hi > %s"]}}]}`, target),
				`{"output":[{"type":"message","content":"ok"}]}`)
			args := []string{"exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "never", "-s", "workspace-write", "--model-script", script}
			if add {
				args = append(args, "--add-dir", extra)
			}
			r := docket(t, nil, append(args, "write")...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			_, err = os.Stat(target)
			if written := err == nil; written != add {
				t.Fatalf("written %t with --add-dir %t\n%s", written, add, r.stderr)
			}
		})
	}
}

// TestBypassIsJournaledAndAuditedLoudly: a command that writes outside the
// workspace runs unsandboxed without a prompt, and the audit's one line
// says the user turned approvals and the sandbox off.
func TestBypassIsJournaledAndAuditedLoudly(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	outside, err := os.MkdirTemp("/var/tmp", "docket-bypass-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outside)
	target := filepath.Join(outside, "x")
	script := writeScript(t, fmt.Sprintf(`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["bash","-c","echo x > %s"]}}]}`, target),
		`{"output":[{"type":"message","content":"ok"}]}`)
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--home", home, "-C", ws, "--model-script", script, "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("the command did not run unsandboxed: %v", err)
	}
	r = docket(t, nil, "audit", "--home", home, "last", "--unsandboxed")
	if r.code != 0 || !strings.Contains(r.stdout, "why: THE USER TURNED OFF APPROVALS AND THE SANDBOX") ||
		!strings.Contains(r.stdout, "--dangerously-bypass-approvals-and-sandbox") {
		t.Fatalf("audit: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = docket(t, nil, "audit", "--home", home, "last", "--json")
	if !strings.Contains(r.stdout, `"dangerously_bypass_approvals_and_sandbox": true`) && !strings.Contains(r.stdout, `"dangerously_bypass_approvals_and_sandbox":true`) {
		t.Fatalf("audit --json does not flag the bypass:\n%s", r.stdout)
	}
}
