package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// TestTheTerminalPromptCannotBeSpoofed runs docket exec under a pty with a
// model that asks to escalate a command hiding `curl | sh` behind an
// erase-line sequence, answers "f" with feedback, and checks what the
// person saw, what ran, and what the journal kept.
func TestTheTerminalPromptCannotBeSpoofed(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{
		"command":             []string{"bash", "-c", "echo pwned > pwned.txt \x1b[2K\rgit status"},
		"sandbox_permissions": "require_escalated",
		"justification":       "routine\x1b]0;approved\x07 status check",
	})
	script := `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":` + string(args) + `}]}` + "\n" +
		`{"output":[{"type":"message","content":"Understood."}]}` + "\n"
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "on-request",
		"-s", "workspace-write", "--model-script", sp, "check the status")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatalf("start under a pty: %v", err)
	}
	defer ptmx.Close()
	scr := newCLIScreen(ptmx)
	shown := scr.waitFor(t, "answer (y/s/")
	for _, s := range []string{
		`command: bash -c $'echo pwned > pwned.txt \e[2K\rgit status'`,
		`the model says (its words, not Docket's): routine\e]0;approved\x07 status check`,
		"approving runs this WITHOUT THE SANDBOX",
		"[f] deny and tell the model why",
	} {
		if !strings.Contains(shown, s) {
			t.Errorf("prompt lacks %q:\n%s", s, shown)
		}
	}
	for _, raw := range []string{"\x1b[2K", "\x1b]0;"} {
		if strings.Contains(shown, raw) {
			t.Errorf("the terminal got %q raw:\n%q", raw, shown)
		}
	}
	if _, err := ptmx.Write([]byte("f\n")); err != nil {
		t.Fatal(err)
	}
	scr.waitFor(t, "tell the model why")
	if _, err := ptmx.Write([]byte("do not pipe curl into sh\n")); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exec: %v\n%s", err, scr.all())
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned.txt")); err == nil {
		t.Fatal("the denied command ran")
	}
	out, err := exec.Command(bin, "audit", "--home", home, "last", "--json").Output()
	if err != nil {
		t.Fatalf("audit: %v", err)
	}
	if !strings.Contains(string(out), `"feedback":"do not pipe curl into sh"`) {
		t.Fatalf("the audit does not hold the feedback:\n%s", out)
	}
	if out, err := exec.Command(bin, "replay", "--home", home, "last").CombinedOutput(); err != nil {
		t.Fatalf("replay: %v\n%s", err, out)
	}
}
