package e2e

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Stubs are the empty read-only directories docket makes where a protected
// path (.git, .docket, .agents, the lean helper beside docket) is missing,
// so that the sandbox has something to bind read-only over. Docket may only
// ever remove a stub it made and knows it made (issue 27, items 1 and 3).

// shellScript writes a model script whose one call runs cmdline, then
// ends the turn.
func shellScript(t *testing.T, cmdline string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "script.jsonl")
	line := fmt.Sprintf(`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["bash","-c",%q]}}]}`+"\n", cmdline) +
		`{"output":[{"type":"message","content":"done"}]}` + "\n"
	if err := os.WriteFile(script, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	return script
}

// loosen makes what a test left under dir removable by t.TempDir's cleanup.
func loosen(dir string) {
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
}

// TestStubsNeverRemoveTheUsersEmptyReadOnlyDirectories: the user's own
// empty 0555 .docket and .agents in the workspace and .git in an --add-dir
// root look like stubs, but docket did not make them: a sandboxed call
// binds them read-only and leaves them as they were.
func TestStubsNeverRemoveTheUsersEmptyReadOnlyDirectories(t *testing.T) {
	home, ws, extra := t.TempDir(), t.TempDir(), t.TempDir()
	t.Cleanup(func() { loosen(ws); loosen(extra) })
	mine := []string{filepath.Join(ws, ".docket"), filepath.Join(ws, ".agents"), filepath.Join(extra, ".git")}
	for _, d := range mine {
		if err := os.Mkdir(d, 0o555); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	script := shellScript(t, "echo ran > ran")
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "--add-dir", extra, "-a", "never", "-s", "workspace-write",
		"--model-script", script, "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err != nil {
		t.Fatalf("the sandboxed call did not run: %v\n%s", err, r.stderr)
	}
	for _, d := range mine {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o555 {
			t.Errorf("the user's %s after a sandboxed call: %v %v (want it as it was)", d, fi, err)
		}
	}
	// The stubs docket did make for this call (the workspace's .git, the
	// add-dir root's .docket) are gone again.
	for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(extra, ".docket")} {
		if _, err := os.Lstat(d); !os.IsNotExist(err) {
			t.Errorf("docket's stub %s outlived the call (%v)", d, err)
		}
	}
}

// TestStubsLeftByAKilledDocketRemovedOnResume kills docket while a
// sandboxed command runs with an --add-dir root that holds the docket
// binary: the stubs it made there (the root's .git, and the lean helper's
// name beside the binary) and in the workspace are removed by the resume,
// from records kept where an older docket kept them ($DOCKET_HOME/placeholders).
// So are those of its $TMPDIR, which a session keeps from call to call
// rather than per call: the killed docket never removed them.
func TestStubsLeftByAKilledDocketRemovedOnResume(t *testing.T) {
	home, ws, extra, tmpd := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	t.Cleanup(func() {
		_ = os.WriteFile(filepath.Join(ws, "go"), nil, 0o644)
		loosen(ws)
		loosen(extra)
		loosen(tmpd)
	})
	// docket installed under a writable root: its lean helper's name
	// beside it gets a stub, so that no command can plant one there.
	bin := filepath.Join(extra, "bin", "docket")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, faultBin, bin)
	token := randomToken(t)
	script := shellScript(t, fmt.Sprintf(`: %s; echo up > started; while [ ! -e go ]; do sleep 0.05; done`, token))
	cmd := exec.Command(bin, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "--add-dir", extra, "-a", "never", "-s", "workspace-write",
		"--model-script", script, "go")
	cmd.Env = append(os.Environ(), "DOCKET_CRASH_AT=", "TMPDIR="+tmpd)
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
	stubs := []string{filepath.Join(ws, ".git"), filepath.Join(extra, ".git"), filepath.Join(extra, ".docket"), filepath.Join(extra, "bin", "docket-sandbox-helper"),
		filepath.Join(tmpd, ".git"), filepath.Join(tmpd, ".codex")}
	for _, d := range stubs {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o555 {
			t.Fatalf("after the kill %s should be a 0555 stub (the test needs one to clean): %v %v", d, fi, err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The records as a docket before the rename to stubs kept them: a
	// newer docket still reads them.
	if err := os.Rename(filepath.Join(home, "stubs"), filepath.Join(home, "placeholders")); err != nil {
		t.Fatalf("the killed docket's records: %v", err)
	}
	r := docket(t, []string{"DOCKET_CRASH_AT="}, "resume", "--last", "--all", "--home", home, "--model-script", shellScript(t, "true"))
	for _, d := range stubs {
		if _, err := os.Lstat(d); !os.IsNotExist(err) {
			t.Errorf("the stub %s a killed docket left is still there after resume (%v); resume exit %d:\n%s", d, err, r.code, r.stderr)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLeftStubsRemovedOnNextStart kills a real docket while a
// sandboxed command runs in a fresh workspace (no .git, .docket or .agents,
// so docket makes read-only stubs for them), then starts docket
// again in that workspace: the stubs it made are gone, while
// look-alikes it did not make stay: the user's own empty 0555 directory
// at a protected name, one the killed command made, and a stub the
// user has put a file in since.
func TestLeftStubsRemovedOnNextStart(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	// The user's own empty read-only .agents: docket finds it, makes nothing.
	if err := os.Mkdir(filepath.Join(ws, ".agents"), 0o555); err != nil {
		t.Fatal(err)
	}
	token := randomToken(t)
	// The command makes an empty 0555 directory of its own, as a hostile
	// one would to have the next start delete it.
	script := shellScript(t, fmt.Sprintf(`: %s; mkdir -m 555 forged; echo up > started; while [ ! -e go ]; do sleep 0.05; done`, token))
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

	// What the crash left: docket's stubs, empty and read-only.
	stubs := []string{".git", ".docket"}
	for _, name := range stubs {
		fi, err := os.Lstat(filepath.Join(ws, name))
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o555 {
			t.Fatalf("after the kill %s should be a 0555 stub (the test needs one to clean): %v %v", name, fi, err)
		}
	}
	// The user puts something in one stub after the crash: it is
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
		t.Errorf("the stub .git a killed docket left is still there (%v)", err)
	}
	for _, name := range []string{".agents", "forged", ".docket/notes"} {
		if _, err := os.Lstat(filepath.Join(ws, name)); err != nil {
			t.Errorf("%s is not docket's stub but was removed: %v", name, err)
		}
	}
}
