package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// gitWorkspace is a fresh workspace that is a git repository, as exec
// wants by default.
func gitWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return ws
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestACodexUsersConfigRunsExec copies a realistic ~/.codex/config.toml
// into Docket's home unchanged and runs a turn: the UI-only keys draw one
// warning, the shell environment policy shapes the command's environment,
// and notify gets Codex's payload.
func TestACodexUsersConfigRunsExec(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), gitWorkspace(t)
	codexCfg, err := os.ReadFile("../internal/config/testdata/codex_config.toml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, "config.toml"), string(codexCfg))
	script := writeScript(t,
		`{"output":[{"type":"function_call","call_id":"e1","name":"shell","arguments":{"command":["env"]}}]}`,
		`{"output":[{"type":"message","content":"environment shown"}]}`)
	notified := filepath.Join(t.TempDir(), "notify.json")
	r := docket(t, []string{"E2E_NOT_FOR_COMMANDS=leak", "LANG=C.UTF-8"}, "exec", "--home", home, "-C", ws, "--json", "-a", "never",
		"--model-script", script,
		// The fixture's servers are not installed here; its notifier is not either.
		"-c", "mcp_servers.docs.enabled=false", "-c", "mcp_servers.linear.enabled=false",
		"-c", fmt.Sprintf(`notify=["sh", "-c", "printf '%%s' \"$1\" > %s", "sh"]`, notified),
		"show the environment")
	if r.code != 0 {
		t.Fatalf("exec with a Codex config: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var notes []string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.Contains(l, "note (said once):") {
			notes = append(notes, l)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "file_opener (line 14)") || !strings.Contains(notes[0], "[tui]") {
		t.Errorf("want one note naming the ignored keys, got %q", notes)
	}
	// include_only = [PATH, HOME, CI, PAGER, LANG], set CI and PAGER.
	for _, want := range []string{`CI=1`, `PAGER=cat`, `LANG=C.UTF-8`, `PATH=`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the command's environment lacks %s:\n%s", want, r.stdout)
		}
	}
	for _, unwanted := range []string{"E2E_NOT_FOR_COMMANDS", "USER="} {
		if strings.Contains(r.stdout, unwanted) {
			t.Errorf("the command's environment has %s, which include_only leaves out", unwanted)
		}
	}
	b, err := os.ReadFile(notified)
	if err != nil {
		t.Fatalf("notify did not run: %v", err)
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("notify payload %q: %v", b, err)
	}
	ids := sessionIDs(t, home)
	if p["type"] != "agent-turn-complete" || len(ids) != 1 || p["thread-id"] != ids[0] || p["turn-id"] == "" || p["cwd"] != ws ||
		p["last-assistant-message"] != "environment shown" || fmt.Sprint(p["input-messages"]) != "[show the environment]" {
		t.Errorf("notify payload = %s (session %v)", b, ids)
	}
}

func TestAConfigWithTyposNamesEveryProblemAtOnce(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), gitWorkspace(t)
	writeFile(t, filepath.Join(home, "config.toml"), "model = 'x'\naproval_policy = 'never'\nsandbox_mod = 'danger-full-access'\nhide_agent_reasoning = true\n[tui]\nanimations = false\n")
	r := docket(t, nil, "exec", "--home", home, "-C", ws, "--model-script", writeScript(t, `{"output":[{"type":"message","content":"x"}]}`), "hi")
	file := filepath.Join(home, "config.toml")
	for _, want := range []string{"2 problems", file + `:2: aproval_policy: unknown key; did you mean "approval_policy"?`,
		file + `:3: sandbox_mod: unknown key; did you mean "sandbox_mode"?`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if r.code != 2 || strings.Contains(r.stderr, "hide_agent_reasoning") && !strings.Contains(r.stderr, "warning") {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
}

// TestOnlyATrustedProjectsRulesLoad runs the same forbidden command in a
// project whose .docket/rules forbid it, untrusted and then trusted.
func TestOnlyATrustedProjectsRulesLoad(t *testing.T) {
	t.Parallel()
	ws := gitWorkspace(t)
	writeFile(t, filepath.Join(ws, ".docket", "rules", "project.rules"), `prefix_rule(pattern=["touch"], decision="forbidden", justification="the project forbids touch")`+"\n")
	script := writeScript(t,
		`{"output":[{"type":"function_call","call_id":"t1","name":"shell","arguments":{"command":["touch","made.txt"]}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`)
	for _, tc := range []struct {
		name    string
		config  string
		created bool
		warn    string
	}{
		{"unknown project", "", true, "is not in the trust list"},
		{"untrusted project", fmt.Sprintf("[projects.%q]\ntrust_level = \"untrusted\"\n", ws), true, "is marked untrusted"},
		{"trusted project", fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", ws), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			writeFile(t, filepath.Join(home, "config.toml"), tc.config)
			_ = os.Remove(filepath.Join(ws, "made.txt"))
			r := docket(t, nil, "exec", "--home", home, "-C", ws, "-s", "workspace-write", "-a", "never", "--model-script", script, "touch it")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			_, err := os.Stat(filepath.Join(ws, "made.txt"))
			if created := err == nil; created != tc.created {
				t.Errorf("made.txt created = %v, want %v (project rules loaded = %v)\n%s", created, tc.created, !tc.created, r.stderr)
			}
			if tc.warn != "" && (!strings.Contains(r.stderr, tc.warn) || !strings.Contains(r.stderr, filepath.Join(ws, ".docket", "rules"))) {
				t.Errorf("stderr does not say the project's rules were not loaded (%q):\n%s", tc.warn, r.stderr)
			}
			if tc.warn == "" && strings.Contains(r.stderr, "warning") {
				t.Errorf("a trusted project drew a warning:\n%s", r.stderr)
			}
		})
	}
}

// everythingHTTP runs the npm everything server in streamable HTTP mode on
// a free loopback port, behind a reverse proxy that records the
// Authorization header of every request.
func everythingHTTP(t *testing.T) (endpoint string, auth func() []string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	cmd := exec.Command(mcpBin(t), "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				ready <- true
				for sc.Scan() {
				}
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the everything server ended before listening")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the everything server did not listen within 60s")
	}
	target, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", port))
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if v := r.Header.Get("Authorization"); !slices.Contains(seen, v) {
			seen = append(seen, v)
		}
		mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

func TestARemoteMCPServerThroughTheBinary(t *testing.T) {
	t.Parallel()
	endpoint, auth := everythingHTTP(t)
	home, ws := t.TempDir(), gitWorkspace(t)
	writeFile(t, filepath.Join(home, "config.toml"), fmt.Sprintf("[mcp_servers.remote]\nurl = %q\nbearer_token_env_var = \"E2E_MCP_TOKEN\"\nenabled_tools = [\"echo\"]\nstartup_timeout_sec = 60\n", endpoint))
	env := []string{"E2E_MCP_TOKEN=tok-e2e"}
	r := docket(t, env, "mcp", "list", "--home", home, "--json")
	var list struct {
		Servers []struct {
			Name, State, URL string
			Tools            []string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || r.code != 0 {
		t.Fatalf("mcp list: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if len(list.Servers) != 1 || list.Servers[0].State != "running" || list.Servers[0].URL != endpoint ||
		strings.Join(list.Servers[0].Tools, ",") != "mcp__remote__echo" {
		t.Fatalf("mcp list: %+v", list)
	}
	script := writeScript(t,
		`{"output":[{"type":"function_call","call_id":"m1","name":"mcp__remote__echo","arguments":{"message":"over streamable http"}}]}`,
		`{"output":[{"type":"message","content":"echoed"}]}`)
	r = docket(t, env, "exec", "--home", home, "-C", ws, "--json", "--model-script", script, "--decisions", "approved", "echo it")
	if r.code != 0 || !strings.Contains(r.stdout, "Echo: over streamable http") {
		t.Fatalf("exec: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := auth(); !slices.Equal(got, []string{"Bearer tok-e2e"}) {
		t.Errorf("Authorization headers seen = %q, want the bearer token on every request", got)
	}
	// Without the token's variable the server fails to start, and says why.
	r = docket(t, nil, "mcp", "list", "--home", home)
	if !strings.Contains(r.stdout+r.stderr, "E2E_MCP_TOKEN is not set") {
		t.Errorf("mcp list without the token:\n%s%s", r.stdout, r.stderr)
	}
}
