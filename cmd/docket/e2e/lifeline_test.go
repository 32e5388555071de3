package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCommandDiesWithDocket kills a real docket with SIGKILL while its
// command runs, sandboxed and unsandboxed, and checks the command never
// gets to write afterwards. The command waits for a file the test creates
// only after docket is dead (instead of a sleep), so the outcome does not
// depend on timing: either the command was killed with docket, or it
// writes "late" once released. With the lifeline turned off (the
// docketfault build's DOCKET_FAULT_NO_LIFELINE=1) the same run shows the
// command outliving docket and writing after the crash.
func TestCommandDiesWithDocket(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		sandbox    string
		noLifeline bool
		wantLate   bool
	}{
		{name: "sandboxed command dies with docket", sandbox: "workspace-write"},
		{name: "unsandboxed command dies with docket", sandbox: "danger-full-access"},
		{name: "without the lifeline a sandboxed command writes after the crash", sandbox: "workspace-write", noLifeline: true, wantLate: true},
		{name: "without the lifeline an unsandboxed command writes after the crash", sandbox: "danger-full-access", noLifeline: true, wantLate: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			token := randomToken(t)
			// The token names the command's processes in /proc.
			cmdline := fmt.Sprintf(`: %s; echo up > started; while [ ! -e go ]; do sleep 0.05; done; echo late >> marker`, token)
			script := filepath.Join(t.TempDir(), "script.jsonl")
			line := fmt.Sprintf(`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["bash","-c",%q],"timeout_ms":600000}}]}`+"\n", cmdline)
			if err := os.WriteFile(script, []byte(line+`{"output":[{"type":"message","content":"done"}]}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			release := func() {
				if err := os.WriteFile(filepath.Join(ws, "go"), nil, 0o644); err != nil {
					t.Error(err)
				}
			}
			// Whatever happens, the command's loop ends.
			t.Cleanup(release)

			env := append(os.Environ(), "DOCKET_CRASH_AT=")
			if tc.noLifeline {
				env = append(env, "DOCKET_FAULT_NO_LIFELINE=1")
			}
			cmd := exec.Command(faultBin, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "never", "-s", tc.sandbox,
				"--model-script", script, "go")
			cmd.Env = env
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
			if len(processesWith(t, token)) == 0 {
				t.Fatal("the command's processes are not visible in /proc; the test cannot tell whether they die")
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait() // killed: the error says so

			if !tc.wantLate {
				if !waitFor(func() bool { return len(processesWith(t, token)) == 0 }) {
					t.Fatalf("the command outlived docket: pids %v still run", processesWith(t, token))
				}
				release()
				if _, err := os.Stat(filepath.Join(ws, "marker")); !os.IsNotExist(err) {
					t.Fatalf("the command wrote after docket was killed (stat marker: %v)", err)
				}
				return
			}
			if len(processesWith(t, token)) == 0 {
				t.Fatal("without the lifeline the command should outlive docket, but it is gone")
			}
			release()
			if !waitFor(func() bool { _, err := os.Stat(filepath.Join(ws, "marker")); return err == nil }) {
				t.Fatal("without the lifeline the command should have written the marker after the crash")
			}
			waitFor(func() bool { return len(processesWith(t, token)) == 0 })
		})
	}
}

// waitFor polls cond until it holds or a generous bound passes; the bound
// only keeps a broken run from hanging, no outcome depends on it.
func waitFor(cond func() bool) bool {
	for range 3000 { // 30 s
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cond()
}

// processesWith lists the pids whose command line contains token.
func processesWith(t *testing.T, token string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue // exited meanwhile
		}
		if strings.Contains(string(b), token) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

func randomToken(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "lifeline-" + hex.EncodeToString(b)
}
