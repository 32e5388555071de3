package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLeftPlaceholdersRemovedOnNextStart kills a real docket while a
// sandboxed command runs in a fresh workspace (no .git, .docket or .agents,
// so docket makes read-only placeholders for them), then starts docket
// again in that workspace: the placeholders it made are gone, while
// look-alikes it did not make stay: the user's own empty 0555 directory
// at a protected name, one the killed command made, and a placeholder the
// user has put a file in since.
func TestLeftPlaceholdersRemovedOnNextStart(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	// The user's own empty read-only .agents: docket finds it, makes nothing.
	if err := os.Mkdir(filepath.Join(ws, ".agents"), 0o555); err != nil {
		t.Fatal(err)
	}
	token := randomToken(t)
	// The command makes an empty 0555 directory of its own, as a hostile
	// one would to have the next start delete it.
	cmdline := fmt.Sprintf(`: %s; mkdir -m 555 forged; echo up > started; while [ ! -e go ]; do sleep 0.05; done`, token)
	script := filepath.Join(t.TempDir(), "script.jsonl")
	line := fmt.Sprintf(`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["bash","-c",%q]}}]}`+"\n", cmdline)
	if err := os.WriteFile(script, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = os.WriteFile(filepath.Join(ws, "go"), nil, 0o644)
		// Make what the test left removable by t.TempDir's cleanup.
		_ = filepath.Walk(ws, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	cmd := exec.Command(faultBin, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "never", "-s", "workspace-write",
		"--model-script", script, "go")
	cmd.Env = append(os.Environ(), "DOCKET_CRASH_AT=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { _, err := os.Stat(filepath.Join(ws, "started")); return err == nil }) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the command never started; docket said:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed: the error says so
	if !waitFor(func() bool { return len(processesWith(t, token)) == 0 }) {
		t.Fatal("the command outlived docket")
	}

	// What the crash left: docket's placeholders, empty and read-only.
	placeholders := []string{".git", ".docket"}
	for _, name := range placeholders {
		fi, err := os.Lstat(filepath.Join(ws, name))
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o555 {
			t.Fatalf("after the kill %s should be a 0555 placeholder (the test needs one to clean): %v %v", name, fi, err)
		}
	}
	// The user puts something in one placeholder after the crash: it is
	// theirs now, and stays.
	if err := os.Chmod(filepath.Join(ws, ".docket"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".docket", "notes"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(ws, ".docket"), 0o555); err != nil {
		t.Fatal(err)
	}

	// The next start in that workspace (a turn that runs nothing).
	next := filepath.Join(t.TempDir(), "next.jsonl")
	if err := os.WriteFile(next, []byte(`{"output":[{"type":"message","content":"hi"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "never", "-s", "workspace-write", "--model-script", next, "hi")
	if r.code != 0 {
		t.Fatalf("next start: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".git")); !os.IsNotExist(err) {
		t.Errorf("the placeholder .git a killed docket left is still there (%v)", err)
	}
	for _, name := range []string{".agents", "forged", ".docket/notes"} {
		if _, err := os.Lstat(filepath.Join(ws, name)); err != nil {
			t.Errorf("%s is not docket's placeholder but was removed: %v", name, err)
		}
	}
}
