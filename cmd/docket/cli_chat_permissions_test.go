package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// faultCLIBinary is docket built with the docketfault tag
// ($DOCKET_TEST_FAULT_BIN when make built it), whose
// DOCKET_TEST_REQUIREMENTS names a managed requirements file: the tests
// cannot write /etc/docket/requirements.toml.
func faultCLIBinary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("DOCKET_TEST_FAULT_BIN"); bin != "" {
		return bin
	}
	cliBinary(t) // makes built.dir, which TestMain removes
	builtFault.once.Do(func() {
		builtFault.bin = filepath.Join(built.dir, "docket-fault")
		if out, err := exec.Command("go", "build", "-tags", "docketfault,grpcnotrace", "-o", builtFault.bin, ".").CombinedOutput(); err != nil {
			builtFault.err = fmt.Errorf("build docket -tags docketfault: %w\n%s", err, out)
		}
	})
	if builtFault.err != nil {
		t.Fatal(builtFault.err)
	}
	return builtFault.bin
}

var builtFault struct {
	once sync.Once
	bin  string
	err  error
}

// TestChatPermissionsSwitchesTheProfile drives /permissions on a pty: it
// shows the profile in force and opens a picker; switching to a read-only
// profile that hides a file makes the next command run under it (it can
// neither write the workspace nor read the hidden file), the switch is in
// the journal (audit) and the journal verify-replays; a profile the
// managed requirements forbid is refused with the requirement named, and
// nothing changes.
func TestChatPermissionsSwitchesTheProfile(t *testing.T) {
	t.Parallel()
	bin := faultCLIBinary(t)
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	for _, d := range []string{ws, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(ws, "secret.txt")
	if err := os.WriteFile(secret, []byte("the launch codes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf("[permissions.locked.filesystem]\n\":root\" = \"read\"\n%q = \"none\"\n", secret)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	reqs := filepath.Join(dir, "requirements.toml")
	if err := os.WriteFile(reqs, []byte("allowed_permission_profiles = [\":workspace\", \"locked\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each command writes a file and reads the secret; the model echoes.
	call := func(id, file string) string {
		return `{"output":[{"type":"function_call","call_id":"` + id + `","name":"shell","arguments":{"command":["sh","-c","cat secret.txt; echo made > ` + file + `"]}}]}`
	}
	script := strings.Join([]string{call("p1", "before.txt"), `{"output":[{"type":"message","content":"First done."}]}`,
		call("p2", "after.txt"), `{"output":[{"type":"message","content":"Second done."}]}`}, "\n") + "\n"
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"DOCKET_TEST_REQUIREMENTS=" + reqs}
	r := startChatEnv(t, bin, env, "chat", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "never", "--permissions", ":workspace", "--model-script", sp)
	r.scr.waitFor(t, 0, "approvals never")

	at := r.scr.mark()
	r.typeLine("first")
	r.idleAfter(at, "First done.")
	if _, err := os.Stat(filepath.Join(ws, "before.txt")); err != nil {
		t.Fatalf("under :workspace the command could not write the workspace: %v", err)
	}

	// No argument: what is in force, and a picker of the profiles.
	at = r.scr.mark()
	r.typeLine("/permissions")
	shown := r.scr.waitFor(t, at, "choose a permission profile")
	for _, want := range []string{"permission profile: :workspace", ":read-only", ":danger-full-access", "locked"} {
		if !strings.Contains(shown[at:], want) {
			t.Errorf("/permissions lacks %q:\n%s", want, shown[at:])
		}
	}
	r.keys("\x1b") // Esc keeps it
	r.scr.waitFor(t, at, "Enter send")

	// A profile the requirements forbid: refused, naming the requirement.
	at = r.scr.mark()
	r.typeLine("/permissions :danger-full-access")
	shown = r.scr.waitFor(t, at, "allowed_permission_profiles")
	if !strings.Contains(shown[at:], "not allowed") || !strings.Contains(shown[at:], reqs) {
		t.Errorf("the refusal does not name the requirement and its file:\n%s", shown[at:])
	}

	at = r.scr.mark()
	r.typeLine("/permissions locked")
	r.scr.waitFor(t, at, "permission profile is now locked")
	r.scr.waitFor(t, at, "sandbox read-only")
	at = r.scr.mark()
	r.typeLine("second")
	shown = r.idleAfter(at, "Second done.")
	if _, err := os.Stat(filepath.Join(ws, "after.txt")); err == nil {
		t.Errorf("under the read-only profile the command wrote the workspace")
	}
	if strings.Contains(shown[at:], "the launch codes") {
		t.Errorf("under the profile that hides it, the command read the secret:\n%s", shown[at:])
	}
	r.typeLine("/quit")
	code, out := r.wait()
	if code != 0 {
		t.Fatalf("chat exited %d:\n%s", code, out)
	}
	if !strings.Contains(out, "the launch codes") {
		t.Errorf("the secret was not readable before the switch, so its hiding proves nothing:\n%s", out)
	}
	m := resumeHintRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no resume hint at quit:\n%s", out)
	}
	id := m[1]

	aud := exec.Command(bin, "audit", "--home", home, id)
	aud.Env = append(os.Environ(), env...)
	audOut, err := aud.CombinedOutput()
	if err != nil {
		t.Fatalf("audit: %v\n%s", err, audOut)
	}
	for _, want := range []string{"permission profile locked (was :workspace), switched by user: sandbox read-only", "hides " + secret} {
		if !strings.Contains(string(audOut), want) {
			t.Errorf("audit lacks %q:\n%s", want, audOut)
		}
	}
	if strings.Count(string(audOut), "\npermissions seq ") != 1 {
		t.Errorf("the refused switch left a record:\n%s", audOut)
	}
	rep := exec.Command(bin, "replay", "--home", home, id)
	rep.Env = append(os.Environ(), env...)
	if out, err := rep.CombinedOutput(); err != nil || !strings.Contains(string(out), "replay ok") {
		t.Fatalf("replay: %v\n%s", err, out)
	}
}
