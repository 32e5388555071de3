package e2e

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// TestHumanModeHeaderUsageAndFailuresOnce: the header names the session,
// model, policy, sandbox and workspace; the turn's token usage follows the
// answer; a failed turn is said once.
func TestHumanModeHeaderUsageAndFailuresOnce(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	script := writeScript(t, `{"output":[{"type":"message","content":"hi there"}],"usage":{"input_tokens":10,"output_tokens":2}}`)
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "never", "-s", "workspace-write", "--model-script", script, "hello")
	if r.code != 0 || r.stdout != "hi there\n" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	id := sessionIDs(t, home)[0]
	for _, want := range []string{"session " + id, "policy     approval never, sandbox workspace-write, network off", "workspace  " + ws, "tokens: 10 in (0 cached), 2 out"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	// The script has no answer for this turn: the turn fails, once.
	r = docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "--model-script", writeScript(t, ""), "hello")
	if r.code != 1 || strings.Count(r.stderr, "model script exhausted") != 1 {
		t.Fatalf("exit %d; the failure is not said exactly once:\n%s", r.code, r.stderr)
	}
}

// TestProgressLineOnlyOnATerminal: with stderr a terminal the progress
// line is drawn (and cleared); with stderr a pipe it never is.
func TestProgressLineOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	script := writeScript(t, `{"output":[{"type":"message","content":"ok"}]}`, `{"output":[{"type":"message","content":"ok"}]}`)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	cmd := exec.Command(docketBin, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "--model-script", script, "hello")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var screen bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&screen, ptmx); close(copied) }()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exec: %v", err)
	}
	<-copied // the terminal reads EOF (EIO) once the process has gone
	if !strings.Contains(screen.String(), "model working") || !strings.Contains(screen.String(), "\r\x1b[K") {
		t.Fatalf("no progress line on the terminal:\n%q", screen.String())
	}
	r := docket(t, nil, "resume", "--last", "--home", home, "-C", ws, "--model-script", script, "again")
	if r.code != 0 || strings.Contains(r.stderr, "model working") {
		t.Fatalf("exit %d; progress drawn on a pipe:\n%q", r.code, r.stderr)
	}
}
