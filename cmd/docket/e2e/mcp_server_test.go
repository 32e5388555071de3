package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpServerEnv is a home, a workspace and a directory outside it that the
// sandbox does not let a command write (/tmp and $TMPDIR are left out of
// the writable roots, so only the workspace is).
type mcpServerEnv struct {
	home, ws, outside string
}

func newMCPServerEnv(t *testing.T) mcpServerEnv {
	t.Helper()
	e := mcpServerEnv{home: t.TempDir(), ws: t.TempDir(), outside: t.TempDir()}
	cfg := "approval_policy = \"on-failure\"\nsandbox_mode = \"workspace-write\"\n\n" +
		"[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"
	if err := os.WriteFile(filepath.Join(e.home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e mcpServerEnv) args(extra ...string) []string {
	return append([]string{"mcp-server", "--home", e.home, "-C", e.ws, "--skip-git-repo-check"}, extra...)
}

// elicitations records what the server asked the client's user.
type elicitations struct {
	mu   sync.Mutex
	msgs []string
}

func (el *elicitations) accept(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	el.mu.Lock()
	el.msgs = append(el.msgs, req.Params.Message)
	el.mu.Unlock()
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approved"}}, nil
}

func (el *elicitations) all() []string {
	el.mu.Lock()
	defer el.mu.Unlock()
	return append([]string(nil), el.msgs...)
}

// stdioClient starts docket mcp-server on a pipe and connects the SDK's
// client to it; el, when set, answers elicitations.
func stdioClient(t *testing.T, e mcpServerEnv, el *elicitations) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if el != nil {
		opts.ElicitationHandler = el.accept
	}
	cmd := exec.Command(docketBin, e.args()...)
	cmd.Stderr = &testWriter{t: t}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "docket-e2e", Version: "1"}, opts).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to docket mcp-server: %v", err)
	}
	return cs
}

// testWriter logs a process's stderr into the test's log.
type testWriter struct {
	t  *testing.T
	mu sync.Mutex
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t.Logf("docket: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// callTool calls a tool and returns its result's text and structured
// result.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, map[string]any, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var sc map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &sc)
	}
	return text.String(), sc, res.IsError
}

// writeOutside is the shell call the sandbox blocks: a write outside the
// workspace.
func writeOutside(e mcpServerEnv, name string) map[string]any {
	return map[string]any{"command": []string{"bash", "-c", "echo escaped > " + filepath.Join(e.outside, name)}}
}

// runSessionScenario is what every transport must do: list the tools, run
// a sandboxed command, get a sandbox denial approved through elicitation
// (the retry runs unsandboxed), apply a patch, drive a long-lived process,
// and read the audit; it returns the session id.
func runSessionScenario(t *testing.T, e mcpServerEnv, cs *mcp.ClientSession, el *elicitations) string {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if got, want := strings.Join(names, ","), "apply_patch,audit,exec_command,shell,write_stdin"; got != want {
		t.Fatalf("tools = %s, want %s", got, want)
	}

	text, sc, isErr := callTool(t, cs, "shell", map[string]any{"command": []string{"bash", "-c", "echo inside > in.txt && cat in.txt"}})
	if isErr || !strings.Contains(text, "inside") || sc["status"] != "completed" {
		t.Fatalf("sandboxed command: error=%v status=%v text=%q", isErr, sc["status"], text)
	}
	id, _ := sc["session_id"].(string)
	if id == "" {
		t.Fatalf("no session_id in %v", sc)
	}

	text, sc, isErr = callTool(t, cs, "shell", writeOutside(e, "approved.txt"))
	if isErr || sc["status"] != "completed" {
		t.Fatalf("denied then approved: error=%v status=%v text=%q", isErr, sc["status"], text)
	}
	if b, err := os.ReadFile(filepath.Join(e.outside, "approved.txt")); err != nil || string(b) != "escaped\n" {
		t.Fatalf("the approved retry did not write outside the workspace: %q %v", b, err)
	}
	asked := el.all()
	if len(asked) != 1 || !strings.Contains(asked[0], "retry") || !strings.Contains(asked[0], "WITHOUT the sandbox") {
		t.Fatalf("elicitations = %q, want one retry request that says it runs without the sandbox", asked)
	}

	text, _, isErr = callTool(t, cs, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: added.txt\n+patched\n*** End Patch\n"})
	if isErr {
		t.Fatalf("apply_patch: %s", text)
	}
	if b, err := os.ReadFile(filepath.Join(e.ws, "added.txt")); err != nil || string(b) != "patched\n" {
		t.Fatalf("apply_patch did not add the file: %q %v", b, err)
	}

	// A long-lived process: exec_command leaves it waiting for input,
	// write_stdin feeds it, both as calls of the session.
	text, sc, isErr = callTool(t, cs, "exec_command", map[string]any{"cmd": "read x; echo got-$x", "tty": true, "yield_time_ms": 500})
	pid, ok := sc["process_id"].(float64)
	if isErr || !ok {
		t.Fatalf("exec_command should leave the process running: error=%v %v %q", isErr, sc, text)
	}
	text, sc, isErr = callTool(t, cs, "write_stdin", map[string]any{"session_id": pid, "chars": "hello\n", "yield_time_ms": 5000})
	if isErr || !strings.Contains(text, "got-hello") || sc["process_id"] != nil {
		t.Fatalf("write_stdin: error=%v %v %q", isErr, sc, text)
	}

	text, _, isErr = callTool(t, cs, "audit", map[string]any{"unsandboxed_only": true})
	if isErr || !strings.Contains(text, "mcp_2") || strings.Contains(text, "mcp_1 ") {
		t.Fatalf("audit --unsandboxed through the tool: error=%v\n%s", isErr, text)
	}
	return id
}

// auditSays runs docket audit on the session and checks what it says.
func auditSays(t *testing.T, e mcpServerEnv, id string, want ...string) string {
	t.Helper()
	r := docket(t, nil, "audit", "--home", e.home, id)
	if r.code != 0 {
		t.Fatalf("docket audit %s: exit %d\n%s%s", id, r.code, r.stdout, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("docket audit does not say %q:\n%s", w, r.stdout)
		}
	}
	return r.stdout
}

// TestMCPServerStdio: the SDK's client over stdio lists the tools, runs a
// sandboxed command, has a sandbox denial retried unsandboxed on its
// user's elicited approval, applies a patch, and the session's journal
// tells docket audit and replay all of it.
func TestMCPServerStdio(t *testing.T) {
	e := newMCPServerEnv(t)
	el := &elicitations{}
	cs := stdioClient(t, e, el)
	id := runSessionScenario(t, e, cs, el)
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	waitUnlocked(t, e, id)
	auditSays(t, e, id, "call mcp_1", "call mcp_2", "call mcp_3", "call mcp_4", "call mcp_5", "UNSANDBOXED because sandbox denied it", `MCP client "docket-e2e 1" through elicitation approved the retry`, `approved by MCP client "docket-e2e 1" through elicitation`)
	un := docket(t, nil, "audit", "--home", e.home, "--unsandboxed", id)
	if !strings.Contains(un.stdout, "mcp_2") || strings.Contains(un.stdout, "mcp_1") {
		t.Errorf("audit --unsandboxed should list mcp_2 only:\n%s", un.stdout)
	}
	if r := docket(t, nil, "replay", "--home", e.home, id); r.code != 0 {
		t.Errorf("docket replay %s: exit %d\n%s%s", id, r.code, r.stdout, r.stderr)
	}
}

// waitUnlocked waits for the server to let go of the session's journal
// (the client's Close ends the process, which closes it).
func waitUnlocked(t *testing.T, e mcpServerEnv, id string) {
	t.Helper()
	for range 200 {
		r := docket(t, nil, "audit", "--home", e.home, id)
		if !strings.Contains(r.stderr, "in use") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("session %s's journal is still in use after the client closed", id)
}

// TestMCPServerParksWithoutElicitation: a client that cannot be asked gets
// a parked call whose result names the session and call; its calls are
// refused until docket resume answers, then go on in the same session, and
// the audit shows the approval and why it ran unsandboxed. The first call
// after the answer carries the parked call's outcome, which the client
// would otherwise never see.
func TestMCPServerParksWithoutElicitation(t *testing.T) {
	e := newMCPServerEnv(t)
	cs := stdioClient(t, e, nil)
	defer cs.Close()
	parkedCmd := map[string]any{"command": []string{"bash", "-c", "echo escaped > " + filepath.Join(e.outside, "parked.txt") + " && echo parked-call-ran"}}
	text, sc, isErr := callTool(t, cs, "shell", parkedCmd)
	if !isErr || sc["status"] != "parked" || sc["call_id"] != "mcp_1" {
		t.Fatalf("want a parked result for mcp_1: error=%v %v\n%s", isErr, sc, text)
	}
	id, _ := sc["session_id"].(string)
	if !strings.Contains(text, id) || !strings.Contains(text, "docket resume "+id+" --decisions mcp_1=approved") {
		t.Fatalf("the parked result does not say how to go on:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(e.outside, "parked.txt")); err == nil {
		t.Fatal("the parked call wrote outside the workspace before anyone approved it")
	}
	text, _, isErr = callTool(t, cs, "shell", map[string]any{"command": []string{"touch", "too-early"}})
	if !isErr || !strings.Contains(text, "parked") {
		t.Fatalf("a call while the session waits should be refused, naming the park: error=%v %s", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "too-early")); err == nil {
		t.Fatal("a call ran while the session was parked")
	}
	// The server let go of the journal at the park: resume takes it while
	// the client is still connected.
	r := docket(t, nil, "resume", "--home", e.home, id, "--decisions", "mcp_1=approved")
	if r.code != 0 {
		t.Fatalf("docket resume: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(e.outside, "parked.txt")); err != nil || string(b) != "escaped\n" {
		t.Fatalf("the resumed call did not run: %q %v", b, err)
	}
	// Answered, the session goes on in the same MCP session.
	text, sc, isErr = callTool(t, cs, "shell", map[string]any{"command": []string{"bash", "-c", "echo after > after.txt"}})
	if isErr || sc["session_id"] != id || sc["call_id"] != "mcp_2" {
		t.Fatalf("the call after the answer should run in session %s as mcp_2 (the refused call took no id): error=%v %v %s", id, isErr, sc, text)
	}
	answered, _ := sc["answered"].([]any)
	if len(answered) != 1 {
		t.Fatalf("the call after the answer should carry the parked call's outcome: answered = %v", sc["answered"])
	}
	a, _ := answered[0].(map[string]any)
	if a["call_id"] != "mcp_1" || a["decision"] != "approved" || a["source"] != "decisions_flag" || a["status"] != "completed" ||
		a["exit_code"] != float64(0) || !strings.Contains(a["output"].(string), "parked-call-ran") {
		t.Errorf("answered[0] = %v, want mcp_1 approved by decisions_flag, completed, exit 0, its output", a)
	}
	if !strings.Contains(text, "Parked call mcp_1 was answered with docket resume: approved by decisions_flag, completed (exit 0)") ||
		!strings.Contains(text, "parked-call-ran") {
		t.Errorf("the result's text does not tell the parked call's outcome:\n%s", text)
	}
	_, sc, _ = callTool(t, cs, "shell", map[string]any{"command": []string{"true"}})
	if sc["answered"] != nil {
		t.Errorf("only the first call after the answer carries it: %v", sc["answered"])
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	waitUnlocked(t, e, id)
	auditSays(t, e, id, "call mcp_1", "UNSANDBOXED because sandbox denied it", "user (--decisions) approved the retry", "call mcp_2")
	if r := docket(t, nil, "replay", "--home", e.home, id); r.code != 0 {
		t.Errorf("docket replay %s: exit %d\n%s%s", id, r.code, r.stdout, r.stderr)
	}
}

// TestMCPServerBadInput: malformed arguments get a tool error naming the
// argument, an unknown tool a protocol error naming it.
func TestMCPServerBadInput(t *testing.T) {
	e := newMCPServerEnv(t)
	cs := stdioClient(t, e, nil)
	defer cs.Close()
	for _, tc := range []struct {
		name, tool string
		args       any
		want       string
	}{
		{"command not an array", "shell", map[string]any{"command": "ls"}, "command"},
		{"unknown argument", "shell", map[string]any{"command": []string{"ls"}, "cwd": "/"}, `"cwd"`},
		{"apply_patch without input", "apply_patch", map[string]any{"patch": "x"}, "input"},
		{"write_stdin to no process", "write_stdin", map[string]any{"session_id": 42}, "42"},
		{"audit format", "audit", map[string]any{"format": "xml"}, "format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, _, isErr := callTool(t, cs, tc.tool, tc.args)
			if !isErr || !strings.Contains(text, tc.want) {
				t.Errorf("want a tool error naming %s, got error=%v %q", tc.want, isErr, text)
			}
		})
	}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "rm_rf", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), `unknown tool "rm_rf"`) {
		t.Errorf("unknown tool: %v", err)
	}
}

// startHTTPServer starts docket mcp-server --http on a free loopback port
// and returns its URL and token.
func startHTTPServer(t *testing.T, e mcpServerEnv) (string, string) {
	t.Helper()
	tokenFile := filepath.Join(t.TempDir(), "token")
	cmd := exec.Command(docketBin, e.args("--http", "127.0.0.1:0", "--token-file", tokenFile)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`listening on (http://\S+)`)
	var url string
	for sc.Scan() {
		t.Logf("docket: %s", sc.Text())
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		t.Fatal("docket mcp-server --http did not say where it listens")
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	st, err := os.Stat(tokenFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v mode %v, want 0600", err, st.Mode())
	}
	b, _ := os.ReadFile(tokenFile)
	return url, strings.TrimSpace(string(b))
}

// bearer adds the token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestMCPServerHTTP: the same session over streamable HTTP with the bearer
// token; without it, or with a wrong one, 401.
func TestMCPServerHTTP(t *testing.T) {
	e := newMCPServerEnv(t)
	url, token := startHTTPServer(t, e)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range []struct{ name, auth string }{
		{"no token", ""}, {"wrong token", "Bearer " + strings.Repeat("0", len(token))}, {"not bearer", "Basic " + token},
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", tc.name, resp.StatusCode)
		}
	}
	bad := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{"wrong", http.DefaultTransport}}}
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "x", Version: "1"}, nil).Connect(context.Background(), bad, nil); err == nil {
		t.Error("the SDK's client connected with a wrong token")
	}

	el := &elicitations{}
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "docket-e2e-http", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: el.accept}).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect over HTTP: %v", err)
	}
	id := runSessionScenario(t, e, cs, el)
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	waitUnlocked(t, e, id)
	auditSays(t, e, id, "call mcp_2", "UNSANDBOXED because sandbox denied it", `MCP client "docket-e2e-http 1" through elicitation approved the retry`, `approved by MCP client "docket-e2e-http 1" through elicitation`)
}

// TestMCPServerUsageErrors: a non-loopback address unless forced, the
// HTTP flags without --http, and a token file with a token already given
// are usage errors that name the problem.
func TestMCPServerUsageErrors(t *testing.T) {
	e := newMCPServerEnv(t)
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"a non-loopback address", nil, []string{"--http", "0.0.0.0:0"}, "not a loopback address"},
		{"a host name", nil, []string{"--http", "example.com:80"}, "not a loopback address"},
		{"no port", nil, []string{"--http", "127.0.0.1"}, "want HOST:PORT"},
		{"--token-file without --http", nil, []string{"--token-file", filepath.Join(e.home, "t")}, "--http only"},
		{"a token file and a token", []string{"DOCKET_MCP_TOKEN=abc"}, []string{"--http", "127.0.0.1:0", "--token-file", filepath.Join(e.home, "t")}, "DOCKET_MCP_TOKEN already gives one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := docket(t, tc.env, e.args(tc.args...)...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, want 2 saying %q:\n%s", r.code, tc.want, r.stderr)
			}
		})
	}
}

// TestMCPServerTokenFromEnv: $DOCKET_MCP_TOKEN is the token, and it is not
// printed.
func TestMCPServerTokenFromEnv(t *testing.T) {
	e := newMCPServerEnv(t)
	const token = "env-token-0123456789abcdef"
	cmd := exec.Command(docketBin, e.args("--http", "127.0.0.1:0")...)
	cmd.Env = append(os.Environ(), "DOCKET_MCP_TOKEN="+token)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(stderr)
	var url string
	for sc.Scan() {
		if strings.Contains(sc.Text(), token) {
			t.Errorf("the token from the environment was printed: %s", sc.Text())
		}
		if m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range []struct {
		auth string
		want int
	}{{"Bearer " + token, http.StatusOK}, {"Bearer " + token[:len(token)-1], http.StatusUnauthorized}} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", tc.auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.auth, resp.StatusCode, tc.want)
		}
	}
}
