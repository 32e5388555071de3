package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestTopLevelFlagsAndPromptOpenTheUI: docket -a never -m o3 "prompt" on
// a terminal is the interactive UI with the prompt as its first turn, as
// codex -a never -m o3 "prompt" is Codex's.
func TestTopLevelFlagsAndPromptOpenTheUI(t *testing.T) {
	bin := cliBinary(t)
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	for _, d := range []string{ws, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(`{"output":[{"type":"message","content":"Answer to the top-level prompt."}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startChat(t, bin, "--home", home, "-C", ws, "-a", "never", "-m", "o3", "--model-script", sp, "say hi")
	r.idleAfter(0, "Answer to the top-level prompt.")
	shown := r.scr.waitFor(t, 0, "o3")
	r.keys("\x03")
	if code, out := r.wait(); code != 0 {
		t.Fatalf("exit %d:\n%s\n(before: %s)", code, out, shown)
	}
}
