package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxPermissionsThroughTheBinary tries profiles with the built
// binary, as a user would before a session uses them: each write the
// profile forbids is first shown to work without it.
func TestSandboxPermissionsThroughTheBinary(t *testing.T) {
	bin := cliBinary(t)
	home, work := t.TempDir(), t.TempDir()
	config := `[permissions.ro.filesystem]
":root" = "read"

[permissions.net.filesystem]
":root" = "read"

[permissions.net.network]
enabled = true

[permissions.net.network.domains]
"localhost" = "allow"

[permissions.secrets.filesystem]
":root" = "read"
":project_roots" = { "." = "write", "**/.env" = "none" }
"~/.ssh" = "none"
`
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"DOCKET_HOME=" + home, "HOME=" + home, "PATH=/usr/bin:/bin"}
	run := func(args ...string) (int, string) {
		return runBinary(t, bin, env, append([]string{"sandbox", "-C", work}, args...)...)
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(work, name))
		return err == nil
	}

	// Without a profile (no sandbox) the write works.
	if code, out := run("--sandbox", "danger-full-access", "--", "sh", "-c", "echo pwned > unprotected"); code != 0 || !exists("unprotected") {
		t.Fatalf("the write without a sandbox: exit %d %s", code, out)
	}
	// A custom read-only profile stops it.
	if code, out := run("--permissions", "ro", "--", "sh", "-c", "echo pwned > written"); code == 0 || exists("written") {
		t.Fatalf("--permissions ro let the write through: exit %d %s", code, out)
	}
	// :workspace lets the workspace be written, nothing outside it.
	// Outside the workspace and the temporary directories :workspace opens.
	dir, err := os.MkdirTemp("/var/tmp", "docket-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	outside := filepath.Join(dir, "outside")
	if code, out := run("--permissions", ":workspace", "--", "sh", "-c", "echo ok > inside && echo pwned > "+outside); code == 0 || !exists("inside") {
		t.Fatalf(":workspace: exit %d %s", code, out)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatalf(":workspace wrote outside the workspace")
	}
	// --explain says what the profile lets through, and runs nothing.
	if code, out := run("--permissions", ":workspace", "--explain"); !strings.Contains(out, "profile :workspace") || !strings.Contains(out, work+": readable and writable") || code != 0 && code != exitSandboxFailed {
		t.Fatalf("--explain: exit %d %s", code, out)
	}
	// The network profile: its one allowed name through the proxy, and
	// nothing direct (which works without the profile).
	port, _ := loopbackServer(t)
	direct := "curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:" + port + "/"
	if code, out := run("--sandbox", "danger-full-access", "--", "sh", "-c", direct); code != 0 || !strings.Contains(out, "served") {
		t.Fatalf("the direct request without a sandbox: exit %d %s", code, out)
	}
	if code, out := run("--permissions", "net", "--", "sh", "-c", direct); code == 0 || strings.Contains(out, "served") {
		t.Fatalf("a direct request under the network profile: exit %d %s", code, out)
	}
	if code, out := run("--permissions", "net", "--", "curl", "-sS", "--max-time", "10", "http://localhost:"+port+"/"); code != 0 || !strings.Contains(out, "served localhost:"+port) {
		t.Fatalf("the allowed name through the proxy: exit %d %s", code, out)
	}
	if code, out := run("--permissions", "net", "--", "curl", "-sS", "-f", "--max-time", "10", "http://example.com/"); code == 0 || !strings.Contains(out, "network: refused http example.com:80") {
		t.Fatalf("a name no rule covers: exit %d %s", code, out)
	}
	// none paths: hidden by every path, shown readable without the profile.
	for name, text := range map[string]string{filepath.Join(work, "sub", ".env"): "ENV-SECRET", filepath.Join(home, ".ssh", "id_ed25519"): "KEY-SECRET"} {
		if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	read := "cat sub/.env ~/.ssh/id_ed25519 /proc/self/root" + home + "/.ssh/id_ed25519 2>&1; ls -A ~/.ssh"
	if code, out := run("--permissions", ":workspace", "--", "sh", "-c", read); code != 0 || !strings.Contains(out, "ENV-SECRET") || !strings.Contains(out, "KEY-SECRET") {
		t.Fatalf("without none rules the secrets are readable: exit %d %s", code, out)
	}
	if code, out := run("--permissions", "secrets", "--", "sh", "-c", read); strings.Contains(out, "SECRET") || strings.Contains(out, "id_ed25519\n") {
		t.Fatalf("a none path was read: exit %d %s", code, out)
	}
	if code, out := run("--permissions", "secrets", "--explain"); !strings.Contains(out, "/**/.env (glob, expanded 16 levels deep): hidden") || code != 0 && code != exitSandboxFailed {
		t.Fatalf("--explain of hidden paths: exit %d %s", code, out)
	}
	// A session hides none paths too (shown readable under :workspace),
	// and runs a network profile through its own proxy.
	script := filepath.Join(t.TempDir(), "script.jsonl")
	calls := `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["bash","-c","cat sub/.env ~/.ssh/id_ed25519"],"workdir":"."}}]}
{"output":[{"type":"message","content":"Done."}]}
`
	if err := os.WriteFile(script, []byte(calls), 0o644); err != nil {
		t.Fatal(err)
	}
	session := func(profile string) (int, string) {
		return runBinary(t, bin, env, "exec", "--skip-git-repo-check", "--json", "-a", "never", "-C", work, "--permissions", profile, "--model-script", script, "read")
	}
	if code, out := session(":workspace"); code != 0 || !strings.Contains(out, "ENV-SECRET") || !strings.Contains(out, "KEY-SECRET") {
		t.Fatalf("a session under :workspace reads the secrets: exit %d %s", code, out)
	}
	if code, out := session("secrets"); code != 0 || strings.Contains(out, "SECRET") {
		t.Fatalf("a session under the secrets profile: exit %d %s", code, out)
	}
	if code, out := session("net"); code != 0 || !strings.Contains(out, `"status":"completed"`) {
		t.Errorf("docket exec --permissions net (the session runs its proxy): exit %d %s", code, out)
	}
	if code, out := run("--permissions", "ro", "--sandbox", "read-only", "--", "true"); code != exitUsage || !strings.Contains(out, "not with --sandbox") {
		t.Fatalf("--permissions with --sandbox: exit %d %s", code, out)
	}
	if code, out := run("--permissions", "nope", "--", "true"); code != exitUsage || !strings.Contains(out, `"nope" is not defined`) {
		t.Fatalf("an unknown profile: exit %d %s", code, out)
	}
}

// TestSandboxPermissionsRunsTheSessionsPlan: `docket sandbox --permissions`
// runs a command under the plan a session under the same profile runs its
// calls under (session.BuildPlan): the Codex home read in place of
// Docket's is kept read-only (a session's command cannot rewrite the rules
// in force, nor can a command tried here), and the configured [sandbox]
// limits apply, not the built-in ones. Each write refused is first shown
// to work without a sandbox.
func TestSandboxPermissionsRunsTheSessionsPlan(t *testing.T) {
	bin := cliBinary(t)
	work := t.TempDir()
	codexHome := filepath.Join(work, "codexhome")
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	config := `[sandbox]
max_file_size_mb = 3

[permissions.w.filesystem]
":root" = "read"
":project_roots" = { "." = "write" }
`
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	// No Docket home: the Codex home's config is the one in force.
	env := []string{"HOME=" + work, "CODEX_HOME=" + codexHome, "PATH=/usr/bin:/bin"}
	run := func(args ...string) (int, string) { return runBinary(t, bin, env, args...) }
	written := func(name string) bool {
		_, err := os.Stat(filepath.Join(codexHome, name))
		return err == nil
	}
	if code, out := run("sandbox", "-C", work, "--sandbox", "danger-full-access", "--", "sh", "-c", "echo pwned > codexhome/unsandboxed"); code != 0 || !written("unsandboxed") {
		t.Fatalf("the write without a sandbox: exit %d %s", code, out)
	}
	probe := "grep 'Max file size' /proc/self/limits; echo ok > inside; echo pwned > codexhome/rules"
	code, out := run("sandbox", "-C", work, "--permissions", "w", "--", "sh", "-c", probe)
	if written("rules") {
		t.Errorf("docket sandbox --permissions w wrote into the Codex home in force: exit %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(work, "inside")); err != nil {
		t.Errorf("docket sandbox --permissions w did not write the workspace: exit %d %s", code, out)
	}
	if !strings.Contains(out, fmt.Sprint(3<<20)) {
		t.Errorf("docket sandbox --permissions w did not apply max_file_size_mb = 3 (%d bytes): %s", 3<<20, out)
	}
	// A session under the same profile refuses the same write.
	script := filepath.Join(t.TempDir(), "script.jsonl")
	calls := `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["sh","-c","echo pwned > codexhome/session"],"workdir":"."}}]}
{"output":[{"type":"message","content":"Done."}]}
`
	if err := os.WriteFile(script, []byte(calls), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := run("exec", "--skip-git-repo-check", "--json", "-a", "never", "-C", work, "--permissions", "w", "--model-script", script, "write"); code != 0 || written("session") {
		t.Fatalf("a session under the profile: exit %d, wrote the Codex home %t: %s", code, written("session"), out)
	}
}

// runBinary runs the built docket with env and args, and returns its exit
// code and combined output; a command that cannot start fails the test.
func runBinary(t *testing.T, bin string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}
