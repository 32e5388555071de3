package e2e

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The bad input of issue 29, each through the built binary (`docket
// sandbox --permissions NAME`), each attack first shown to work without
// the profile. docs/sandbox.md maps every case to its test.

// profileLab is a docket home holding one configuration, a workspace and
// a HOME for the sandboxed command.
type profileLab struct {
	t          *testing.T
	home, work string
}

func newProfileLab(t *testing.T, config string) *profileLab {
	t.Helper()
	l := &profileLab{t: t, home: t.TempDir(), work: t.TempDir()}
	if err := os.WriteFile(filepath.Join(l.home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return l
}

// sandbox runs `docket sandbox -C work ARGS` with the lab's home and no
// proxy variables of the caller's.
func (l *profileLab) sandbox(args ...string) result {
	l.t.Helper()
	env := []string{"DOCKET_HOME=" + l.home, "HOME=" + l.home, "HTTP_PROXY=", "HTTPS_PROXY=", "ALL_PROXY=", "NO_PROXY=",
		"http_proxy=", "https_proxy=", "all_proxy=", "no_proxy="}
	return docket(l.t, env, append([]string{"sandbox", "-C", l.work}, args...)...)
}

// unsandboxed runs a shell command with no sandbox and no proxy: the
// attack without the profile.
func (l *profileLab) unsandboxed(script string) result {
	l.t.Helper()
	return l.sandbox("--sandbox", "danger-full-access", "--", "sh", "-c", script)
}

func (l *profileLab) write(name, text string) string {
	l.t.Helper()
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(l.work, name)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		l.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		l.t.Fatal(err)
	}
	return p
}

// TestBadInputFilesystemRules: overlapping rules, a glob matching 100,000
// files, none paths that do not exist yet.
func TestBadInputFilesystemRules(t *testing.T) {
	t.Parallel()
	outside := t.TempDir() // not writable under the profiles below (no :tmpdir)
	absent := filepath.Join(outside, "later", "secret")
	config := fmt.Sprintf(`[permissions.ov.filesystem]
":root" = "read"
":project_roots" = { "." = "write", "**/.env" = "none" }
"~/.ssh" = "none"
%q = "none"

[permissions.grant-in-hidden.filesystem]
":root" = "read"
"~/.ssh" = "none"
"~/.ssh/config" = "read"

[permissions.glob-grant.filesystem]
":root" = "read"
":project_roots" = { "." = "write", "data/*" = "none", "data/keep" = "write" }

[permissions.many.filesystem]
":root" = "read"
":project_roots" = { "." = "write", "many/**/*.key" = "none" }

[permissions.missing.filesystem]
":root" = "read"
":project_roots" = { "." = "write", "later.env" = "none" }
`, absent)
	l := newProfileLab(t, config)
	l.write(filepath.Join(l.home, ".ssh", "id_ed25519"), "KEY-SECRET")
	l.write(filepath.Join(l.home, ".ssh", "config"), "SSH-CONFIG")
	l.write("sub/.env", "ENV-SECRET")

	t.Run("overlapping: a nearer none beats :root read and the project's write", func(t *testing.T) {
		read := "cat ~/.ssh/id_ed25519 sub/.env 2>&1"
		if r := l.sandbox("--permissions", ":workspace", "--", "sh", "-c", read); !strings.Contains(r.stdout, "KEY-SECRET") || !strings.Contains(r.stdout, "ENV-SECRET") {
			t.Fatalf("without none rules the secrets are readable: exit %d %s%s", r.code, r.stdout, r.stderr)
		}
		if r := l.sandbox("--permissions", "ov", "--", "sh", "-c", read+"; echo w > written && cat written"); strings.Contains(r.stdout, "SECRET") || !strings.Contains(r.stdout, "w\n") {
			t.Fatalf("under ov: exit %d %s%s", r.code, r.stdout, r.stderr)
		}
	})
	// The rules say the nearer one wins; the sandbox covers a hidden
	// directory whole, so a grant inside one could not be kept: refused,
	// naming the rule, rather than run hiding more than the profile says.
	for name, key := range map[string]string{"grant-in-hidden": `"~/.ssh/config"`, "glob-grant": `data/keep`} {
		t.Run("overlapping: a grant inside a hidden path is refused ("+name+")", func(t *testing.T) {
			r := l.sandbox("--permissions", name, "--", "true")
			if r.code != 2 || !strings.Contains(r.stderr, key) || !strings.Contains(r.stderr, "inside a hidden one") {
				t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
			}
		})
	}
	t.Run("a glob matching 100,000 files is refused, not cut", func(t *testing.T) {
		// A workspace of its own: the other cases' **/.env would meet the
		// same bound.
		l := newProfileLab(t, config)
		for d := 0; d < 100; d++ {
			dir := filepath.Join(l.work, "many", fmt.Sprintf("d%02d", d))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for f := 0; f < 1000; f++ {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.key", f)), []byte("MANY-SECRET"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
		if r := l.sandbox("--permissions", ":workspace", "--", "cat", "many/d99/f999.key"); r.stdout != "MANY-SECRET" {
			t.Fatalf("without the rule the file is readable: exit %d %s%s", r.code, r.stdout, r.stderr)
		}
		r := l.sandbox("--permissions", "many", "--", "cat", "many/d99/f999.key")
		if r.code != 125 || strings.Contains(r.stdout, "SECRET") || !strings.Contains(r.stderr, "many/**/*.key") {
			t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("a none path missing under a writable root is refused", func(t *testing.T) {
		create := "echo LATER-SECRET > later.env && cat later.env"
		if r := l.sandbox("--permissions", ":workspace", "--", "sh", "-c", create); !strings.Contains(r.stdout, "LATER-SECRET") {
			t.Fatalf("without the rule: exit %d %s%s", r.code, r.stdout, r.stderr)
		}
		if err := os.Remove(filepath.Join(l.work, "later.env")); err != nil {
			t.Fatal(err)
		}
		r := l.sandbox("--permissions", "missing", "--", "sh", "-c", create)
		if r.code != 125 || strings.Contains(r.stdout, "SECRET") || !strings.Contains(r.stderr, "later.env does not exist") {
			t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("a none path missing outside the writable roots cannot be created", func(t *testing.T) {
		create := "mkdir -p " + filepath.Dir(absent) + " && echo MADE > " + absent + "; cat " + absent
		if r := l.unsandboxed(create); r.stdout != "MADE\n" {
			t.Fatalf("without the sandbox: exit %d %s%s", r.code, r.stdout, r.stderr)
		}
		if err := os.RemoveAll(filepath.Dir(absent)); err != nil {
			t.Fatal(err)
		}
		if r := l.sandbox("--permissions", "ov", "--", "sh", "-c", create); strings.Contains(r.stdout, "MADE") {
			t.Fatalf("the command made and read a hidden path: exit %d %s%s", r.code, r.stdout, r.stderr)
		}
		if _, err := os.Stat(absent); err == nil {
			t.Fatalf("%s was created", absent)
		}
	})
	// A glob's matches are the ones that exist when the run starts: a file
	// the command creates under a writable root holds only its own bytes,
	// and it may read them back (docs/sandbox.md).
	t.Run("a glob match the command creates holds only what it wrote", func(t *testing.T) {
		r := l.sandbox("--permissions", "ov", "--", "sh", "-c", "mkdir -p new && echo OWN > new/.env && cat new/.env sub/.env 2>&1")
		if !strings.Contains(r.stdout, "OWN") || strings.Contains(r.stdout, "ENV-SECRET") {
			t.Fatalf("exit %d %s%s", r.code, r.stdout, r.stderr)
		}
	})
}

// TestBadInputDomainRules: a port, wildcards, an IDN and a trailing dot in
// a profile's domains.
func TestBadInputDomainRules(t *testing.T) {
	t.Parallel()
	profile := func(name, domain, action string) string {
		return fmt.Sprintf("[permissions.%s.filesystem]\n\":root\" = \"read\"\n[permissions.%s.network]\nenabled = true\n[permissions.%s.network.domains]\n%q = %q\n", name, name, name, domain, action)
	}
	refused := []struct{ name, domain, says string }{
		{"port", "localhost:8080", "cannot have a port"},
		{"star", "*", `"*" alone is not a rule`},
		{"double-star", "**.example.com", "a wildcard may only be a leading"},
		{"inner-star", "api.*.example.com", "a wildcard may only be a leading"},
		{"top-level", "*.localhost", "would cover a whole top-level domain"},
	}
	for _, tc := range refused {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			l := newProfileLab(t, profile("p", tc.domain, "allow"))
			r := l.sandbox("--permissions", "p", "--", "true")
			if r.code != 2 || !strings.Contains(r.stderr, "domains.") || !strings.Contains(r.stderr, tc.says) {
				t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
			}
		})
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "served "+r.Host) }))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	decided := []struct {
		name, domain, action, url, want string
	}{
		{"a trailing dot in the rule", "localhost.", "allow", "http://localhost:" + port + "/", "allowed http localhost:" + port},
		{"a trailing dot in the request", "localhost", "allow", "http://localhost.:" + port + "/", "allowed http localhost:" + port},
		{"a wildcard covers a subdomain", "*.app.localhost", "deny", "http://api.app.localhost:" + port + "/", `refused http api.app.localhost:` + port + ` (permissions.p.network.domains."*.app.localhost")`},
		{"an IDN rule matches its punycode", "bücher.localhost", "deny", "http://xn--bcher-kva.localhost:" + port + "/", `refused http xn--bcher-kva.localhost:` + port + ` (permissions.p.network.domains."bücher.localhost")`},
		{"an upper-case request", "localhost", "allow", "http://LOCALHOST:" + port + "/", "allowed http localhost:" + port},
	}
	for _, tc := range decided {
		t.Run(tc.name, func(t *testing.T) {
			l := newProfileLab(t, profile("p", tc.domain, tc.action))
			r := l.sandbox("--verbose", "--permissions", "p", "--", "curl", "-sS", "--max-time", "10", tc.url)
			if !strings.Contains(r.stderr, "network: "+tc.want) {
				t.Fatalf("want %q: exit %d, stdout %s, stderr %s", tc.want, r.code, r.stdout, r.stderr)
			}
			if served := strings.Contains(r.stdout, "served"); served != strings.HasPrefix(tc.want, "allowed") {
				t.Fatalf("served %v: exit %d, stdout %s, stderr %s", served, r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestBadInputProxyRequests: requests that try to get past the proxy's
// decision by name, or around the proxy, from inside the sandbox.
func TestBadInputProxyRequests(t *testing.T) {
	t.Parallel()
	l := newProfileLab(t, `[permissions.net.filesystem]
":root" = "read"
":project_roots" = { "." = "write" }

[permissions.net.network]
enabled = true
enable_socks5 = true

[permissions.net.network.domains]
"localhost" = "allow"
"evil.test" = "deny"
`)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "served "+r.Host) })
	plain := httptest.NewServer(handler)
	t.Cleanup(plain.Close)
	tlsSrv := httptest.NewTLSServer(handler)
	t.Cleanup(tlsSrv.Close)
	_, port, _ := net.SplitHostPort(plain.Listener.Addr().String())
	_, tport, _ := net.SplitHostPort(tlsSrv.Listener.Addr().String())
	curl := "curl -sS -f --max-time 10 "
	cases := []struct {
		name string
		// attack runs unsandboxed with no proxy and must be served;
		// sandboxed is the same attack inside the sandbox (where the
		// proxy variables are set) and must not be.
		attack, sandboxed string
		says              string
	}{
		{"a CONNECT to an IP literal",
			curl + "-k https://127.0.0.1:" + tport + "/", "",
			"refused http-connect 127.0.0.1:" + tport + " (an IP address (127.0.0.1), not a name"},
		{"a CONNECT whose TLS SNI differs",
			curl + "-k --connect-to evil.test:443:localhost:" + tport + " https://evil.test/", "",
			`refused http-connect localhost:` + tport + ` (TLS server name "evil.test" differs`},
		{"an absolute URI to another host than the Host header",
			curl + "-H 'Host: localhost:" + port + "' http://127.0.0.1:" + port + "/",
			curl + "-H 'Host: localhost:" + port + "' http://evil.test:" + port + "/",
			`refused http evil.test:` + port + ` (permissions.net.network.domains."evil.test")`},
		{"a SOCKS5 request by IP",
			curl + "http://127.0.0.1:" + port + "/",
			curl + "-x socks5://${ALL_PROXY#socks5h://} http://127.0.0.1:" + port + "/",
			"refused socks5 127.0.0.1:" + port + " (an IP address (127.0.0.1), not a name"},
		{"a command that sets NO_PROXY=*",
			"NO_PROXY='*' " + curl + "http://localhost:" + port + "/",
			"NO_PROXY='*' no_proxy='*' " + curl + "http://localhost:" + port + "/", ""},
		{"a command that unsets the proxy variables",
			curl + "http://localhost:" + port + "/",
			"env -u HTTP_PROXY -u http_proxy -u ALL_PROXY -u all_proxy " + curl + "http://localhost:" + port + "/", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if r := l.unsandboxed(tc.attack); !strings.Contains(r.stdout, "served") {
				t.Fatalf("the attack without the profile: exit %d %s%s", r.code, r.stdout, r.stderr)
			}
			cmd := tc.sandboxed
			if cmd == "" {
				cmd = tc.attack
			}
			r := l.sandbox("--permissions", "net", "--", "sh", "-c", cmd)
			if r.code == 0 || strings.Contains(r.stdout, "served") || !strings.Contains(r.stderr, tc.says) {
				t.Fatalf("under the profile: exit %d, stdout %s, stderr %s", r.code, r.stdout, r.stderr)
			}
		})
	}
	t.Run("the allowed name still goes through", func(t *testing.T) {
		r := l.sandbox("--permissions", "net", "--", "sh", "-c", curl+"-k https://localhost:"+tport+"/ && "+curl+"-x socks5h://${ALL_PROXY#socks5h://} http://localhost:"+port+"/")
		if r.code != 0 || strings.Count(r.stdout, "served localhost:") != 2 {
			t.Fatalf("exit %d, stdout %s, stderr %s", r.code, r.stdout, r.stderr)
		}
	})
	// A flood of idle connections takes the proxy's slots (it serves a
	// bounded number at once); once they go, a real request gets through,
	// and the run ends normally.
	t.Run("a flood holds no more than the proxy's bound in docket", func(t *testing.T) {
		floodHeld(t, l)
	})
	t.Run("a proxy flooded with connections", func(t *testing.T) {
		flood := `import os, socket
host, port = os.environ["HTTP_PROXY"].rsplit("/", 1)[1].split(":")
socks = []
for i in range(2000):
    try:
        s = socket.create_connection((host, int(port)), timeout=5)
        socks.append(s)
    except OSError as e:
        break
print("flood", len(socks))
for s in socks:
    s.close()
`
		if _, err := exec.LookPath("python3"); err != nil {
			t.Fatalf("python3: %v", err)
		}
		r := l.sandbox("--permissions", "net", "--", "sh", "-c", "python3 -c '"+flood+"' && "+curl+"http://localhost:"+port+"/")
		if r.code != 0 || !strings.Contains(r.stdout, "flood ") || !strings.Contains(r.stdout, "served localhost:"+port) {
			t.Fatalf("exit %d, stdout %s, stderr %s", r.code, r.stdout, r.stderr)
		}
	})
}

// TestBadInputUnreadableRequirementsFailClosed: a managed requirements file
// docket cannot read stops every run, naming the file. The file is put at
// /etc/docket/requirements.toml in a mount namespace of the test's own (an
// overlay over /etc), as a directory: what root cannot read either.
func TestBadInputUnreadableRequirementsFailClosed(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for a private mount namespace over /etc")
	}
	if _, err := os.Stat("/etc/docket/requirements.toml"); err == nil {
		t.Skip("this machine has its own /etc/docket/requirements.toml")
	}
	l := newProfileLab(t, "")
	lower := t.TempDir()
	if err := os.MkdirAll(filepath.Join(lower, "docket", "requirements.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(overlay bool) result {
		script := `exec "$@"`
		if overlay {
			script = "mount -t overlay overlay -o lowerdir=" + lower + ":/etc /etc && " + script
		}
		args := []string{"-m", "sh", "-c", script, "sh", docketBin, "sandbox", "-C", l.work, "--permissions", ":read-only", "--", "echo", "ran"}
		return run(t, "unshare", []string{"DOCKET_HOME=" + l.home, "HOME=" + l.home}, args...)
	}
	if r := run(false); r.code != 0 || r.stdout != "ran\n" {
		t.Fatalf("without the requirements file: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	r := run(true)
	if r.code != 2 || strings.Contains(r.stdout, "ran") || !strings.Contains(r.stderr, "/etc/docket/requirements.toml: cannot read the managed requirements file") {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
}

// floodHeld opens up to 2,000 idle connections to the proxy from inside
// the sandbox (as many as connect in 5 s each) and, while they are held,
// counts docket's open descriptors: the proxy serves at most 64 at once,
// the surplus waits in the kernel's listen queue, so the flood must not
// show up as descriptors (or goroutines) in docket.
func floodHeld(t *testing.T, l *profileLab) {
	t.Helper()
	flood := `import os, socket, sys, time
host, port = os.environ["HTTP_PROXY"].rsplit("/", 1)[1].split(":")
socks = []
for i in range(2000):
    try:
        socks.append(socket.create_connection((host, int(port)), timeout=5))
    except OSError:
        break
print("held", len(socks), flush=True)
sys.stdin.readline()
`
	cmd := exec.Command(docketBin, "sandbox", "-C", l.work, "--permissions", "net", "--", "python3", "-c", flood)
	cmd.Env = append(os.Environ(), "DOCKET_HOME="+l.home, "HOME="+l.home)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Wait() }()
	defer stdin.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the flood said nothing: %v", err)
	}
	var held int
	if _, err := fmt.Sscanf(line, "held %d", &held); err != nil || held <= 64 {
		t.Fatalf("the flood held %q", line)
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	// The 64 connections served (idle: no upstream yet) and docket's own
	// few dozen; the rest of the flood waits in the kernel's queue, then
	// fails to connect once that is full.
	if len(fds) > 64+40 {
		t.Fatalf("docket holds %d descriptors under a flood of %d connections", len(fds), held)
	}
	t.Logf("flood of %d connections: docket holds %d descriptors", held, len(fds))
}
