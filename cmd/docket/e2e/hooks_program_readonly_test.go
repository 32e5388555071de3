package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestASessionCannotRewriteATrustedHooksProgram: a trusted project hook's
// program outside .docket/.codex (scripts/gate.sh) is checked against its
// trust before each run, but a command of the session running alongside
// (exec_command keeps one running between calls) could rewrite it between
// that check and the run. The session's sandbox keeps the program
// read-only instead, so no command writes it at all: here the model's
// command tries, and the script stays as trusted.
func TestASessionCannotRewriteATrustedHooksProgram(t *testing.T) {
	t.Parallel()
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	projLog := filepath.Join(outside, "project-ran")
	writeFile(t, filepath.Join(home, "config.toml"), "[projects.'"+ws+"']\ntrust_level = 'trusted'\n")
	gate := filepath.Join(ws, "scripts", "gate.sh")
	original := "cat >/dev/null\necho ran >> " + projLog + "\nexit 0\n"
	writeFile(t, gate, original)
	writeFile(t, filepath.Join(ws, ".docket", "config.toml"), "[[hooks.pre_tool]]\ntool = 'shell'\nname = 'gate'\nsandbox = false\ncommand = ['sh', 'scripts/gate.sh']\n")
	if r := docket(t, nil, "hooks", "trust", "gate", "--home", home, "-C", ws); r.code != 0 {
		t.Fatalf("docket hooks trust: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	script := writeScript(t, `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["sh","-c","echo 'echo pwned' >> scripts/gate.sh"]}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`)
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-s", "workspace-write", "--model-script", script, "go")
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(projLog); err != nil || strings.Count(string(b), "\n") != 1 {
		t.Fatalf("the trusted hook did not run once before the call (%q, %v)\n%s", b, err, r.stderr)
	}
	if b, err := os.ReadFile(gate); err != nil || string(b) != original {
		t.Errorf("the session's command rewrote the trusted hook's program (%v):\n%s", err, b)
	}
}
