package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPAddGetRemoveEditOnlyTheirTable: add, get and remove go through
// the binary; the comments and settings around the server survive, and
// the file still loads (mcp list reads it).
func TestMCPAddGetRemoveEditOnlyTheirTable(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cfgPath := filepath.Join(home, "config.toml")
	orig := "# team settings\nmodel = \"gpt-5\" # pinned\n\n# sandbox as agreed\n[sandbox_workspace_write]\nnetwork_access = false\n"
	if err := os.WriteFile(cfgPath, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	step := func(want int, args ...string) result {
		t.Helper()
		// --home right after the subcommand: after "--" it would be the
		// server's argument.
		full := append([]string{args[0], args[1], "--home", home}, args[2:]...)
		r := docket(t, []string{"DOCKET_HOME=" + home}, full...)
		if r.code != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, r.code, want, r.stdout, r.stderr)
		}
		return r
	}
	step(0, "mcp", "add", "fs", "--env", "TOKEN=secret", "--", "npx", "-y", "server-filesystem", "/tmp")
	step(0, "mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp", "--bearer-token-env-var", "WEB_TOKEN")
	b, _ := os.ReadFile(cfgPath)
	if !strings.HasPrefix(string(b), orig) {
		t.Fatalf("the existing lines changed:\n%s", b)
	}
	r := step(0, "mcp", "get", "fs")
	for _, want := range []string{"transport:    stdio", "command:      npx", "TOKEN=*****"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("mcp get fs lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "secret") {
		t.Errorf("mcp get shows an env value:\n%s", r.stdout)
	}
	r = step(0, "mcp", "get", "web", "--json")
	if !strings.Contains(r.stdout, `"transport": "streamable_http"`) || !strings.Contains(r.stdout, `"bearer_token_env_var": "WEB_TOKEN"`) {
		t.Errorf("mcp get web --json:\n%s", r.stdout)
	}
	step(0, "mcp", "remove", "fs")
	step(0, "mcp", "remove", "web")
	b, _ = os.ReadFile(cfgPath)
	if strings.TrimRight(string(b), "\n") != strings.TrimRight(orig, "\n") {
		t.Fatalf("after add and remove the file is not what it was:\n%q\nwant\n%q", b, orig)
	}
	if info, err := os.Stat(cfgPath); err != nil || info.Mode().Perm() != 0o640 {
		t.Fatalf("mode not kept: %v %v", info.Mode(), err)
	}
	r = step(2, "mcp", "remove", "fs")
	if !strings.Contains(r.stderr, `no MCP server "fs"`) {
		t.Errorf("removing a missing server: %s", r.stderr)
	}
	step(2, "mcp", "add", "bad name", "--", "x")
	step(2, "mcp", "get", "nope")
}

// TestLoginWithAPIKeyAndStatus: the key comes from stdin, lands in
// auth.json with mode 0600, status names it masked, and a model request
// carries it.
func TestLoginWithAPIKeyAndStatus(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"OPENAI_API_KEY="}
	r := docket(t, env, "login", "status", "--home", home)
	if r.code != 1 || !strings.Contains(r.stdout, "Not logged in") {
		t.Fatalf("status before login: exit %d %s", r.code, r.stdout)
	}
	cmd := exec.Command(docketBin, "login", "--with-api-key", "--home", home)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader("sk-e2e\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("login --with-api-key: %v %s", err, out)
	}
	info, err := os.Stat(filepath.Join(home, "auth.json"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("auth.json: %v %v", info, err)
	}
	r = docket(t, env, "login", "status", "--home", home)
	if r.code != 0 || !strings.Contains(r.stdout, "Logged in using an API key") || strings.Contains(r.stdout, "sk-e2e") {
		t.Fatalf("status after login: exit %d %s", r.code, r.stdout)
	}
	// The saved key authenticates model requests (the server checks it).
	srv := &responsesServer{}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ws := t.TempDir()
	r = docket(t, append(env, "OPENAI_BASE_URL="+hs.URL+"/v1"), "exec", "--skip-git-repo-check", "--home", home, "-C", ws,
		"-s", "workspace-write", "-a", "on-request", "make a file")
	if r.code != 0 {
		t.Fatalf("exec with the saved key: exit %d\n%s", r.code, r.stderr)
	}
	cmd = exec.Command(docketBin, "login", "--with-api-key", "--home", home)
	cmd.Stdin = strings.NewReader("")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "no API key on stdin") {
		t.Fatalf("an empty stdin: %v %s", err, out)
	}
}

// TestLoginWithAWrongIssuerSaysSo: a server that is not an OAuth device
// endpoint gets a one-line answer naming the issuer to check.
func TestLoginWithAWrongIssuerSaysSo(t *testing.T) {
	t.Parallel()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("<html><body>Not here</body></html>"))
	}))
	defer hs.Close()
	r := docket(t, nil, "login", "--home", t.TempDir(), "--issuer", hs.URL)
	if r.code != 1 || !strings.Contains(r.stderr, "404 Not Found") || !strings.Contains(r.stderr, "is the issuer right?") ||
		strings.Contains(r.stderr, "<html>") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}
