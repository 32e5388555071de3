package e2e

import (
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/internal/githttp"
)

// TestSandboxedGitCloneThroughTheProxy clones a real repository over smart
// HTTP (git http-backend behind net/http/cgi) from inside the sandbox: it
// goes through the egress proxy under a profile allowing the host, is
// refused under one denying it, and a clone that skips the proxy goes
// nowhere, though the same clone works without the sandbox.
func TestSandboxedGitCloneThroughTheProxy(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git: %v", err)
	}
	repos := t.TempDir()
	seed := t.TempDir()
	gitRun := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(seed, "README"), []byte("CLONED-CONTENT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(seed, "init", "-q")
	gitRun(seed, "add", "README")
	gitRun(seed, "commit", "-qm", "seed")
	gitRun(repos, "clone", "-q", "--bare", seed, "repo.git")
	h, err := githttp.Handler(repos)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	l := newProfileLab(t, `[permissions.allow.filesystem]
":root" = "read"
":project_roots" = { "." = "write" }

[permissions.allow.network]
enabled = true

[permissions.allow.network.domains]
"localhost" = "allow"

[permissions.deny.filesystem]
":root" = "read"
":project_roots" = { "." = "write" }

[permissions.deny.network]
enabled = true

[permissions.deny.network.domains]
"localhost" = "deny"
`)
	url := "http://localhost:" + port + "/repo.git"
	clone := func(dest string) string {
		return "git clone -q " + url + " " + dest + " && cat " + dest + "/README"
	}
	// Without the sandbox the clone works, with no proxy at all.
	if r := l.unsandboxed(clone("plain")); r.code != 0 || !strings.Contains(r.stdout, "CLONED-CONTENT") {
		t.Fatalf("the clone without the sandbox: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	cases := []struct {
		name, profile, script string
		ok                    bool
		says                  string
	}{
		{"allowed through the proxy", "allow", clone("through"), true, "allowed http localhost:" + port},
		{"denied by the profile", "deny", clone("denied"), false, `refused http localhost:` + port + ` (permissions.deny.network.domains.localhost)`},
		{"skipping the proxy goes nowhere", "allow", "git -c http.proxy= clone -q " + url + " direct; env -u HTTP_PROXY -u http_proxy -u ALL_PROXY -u all_proxy git clone -q " + url + " direct2", false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := l.sandbox("--verbose", "--permissions", tc.profile, "--", "sh", "-c", tc.script)
			if got := r.code == 0 && strings.Contains(r.stdout, "CLONED-CONTENT"); got != tc.ok || !strings.Contains(r.stderr, tc.says) {
				t.Fatalf("cloned %v, want %v (and %q said): exit %d, stdout %s, stderr %s", got, tc.ok, tc.says, r.code, r.stdout, r.stderr)
			}
		})
	}
	for _, dir := range []string{"denied", "direct", "direct2"} {
		if _, err := os.Stat(filepath.Join(l.work, dir, "README")); err == nil {
			t.Errorf("%s was cloned", dir)
		}
	}
}
