package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// TestChatDrivesAnInteractivePythonThroughUnifiedExec: the chat UI over a
// real pty runs exec_command with a tty (python's REPL under the sandbox),
// writes to it with write_stdin, sees it exit, and ends with the process
// gone; the journal verify-replays.
func TestChatDrivesAnInteractivePythonThroughUnifiedExec(t *testing.T) {
	bin := cliBinary(t)
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	script := strings.Join([]string{
		`{"output":[{"type":"function_call","call_id":"c1","name":"exec_command","arguments":{"cmd":"/usr/bin/python3 -q -i","tty":true,"yield_time_ms":3000}}]}`,
		`{"output":[{"type":"function_call","call_id":"c2","name":"write_stdin","arguments":{"session_id":1000,"chars":"print(6*7)\n","yield_time_ms":3000}}]}`,
		`{"output":[{"type":"function_call","call_id":"c3","name":"write_stdin","arguments":{"session_id":1000,"chars":"exit()\n","yield_time_ms":10000}}]}`,
		`{"output":[{"type":"message","content":"Python said 42."}]}`,
	}, "\n") + "\n"
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startChat(t, bin, "chat", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "on-request", "-s", "read-only", "--model-script", sp)
	r.scr.waitFor(t, 0, "approvals on-request")
	at := r.scr.mark()
	r.typeLine("ask python")
	r.idleAfter(at, "Python said 42.")
	r.typeLine("/quit")
	if code, out := r.wait(); code != 0 {
		t.Fatalf("chat exited %d:\n%s", code, out)
	}
	sf, err := journal.Find(home, "last")
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.OpenReadOnly(sf.Path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := j.All()
	j.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, rec := range recs {
		if b, err := rec.Decode(); err == nil {
			if o, ok := b.(*events.ToolOutput); ok {
				out[o.CallID] = o.Output
			}
		}
	}
	if !strings.Contains(out["c1"], "Process running with session ID 1000") || !strings.Contains(out["c2"], "42\r\n") ||
		!strings.Contains(out["c3"], "Process exited with code 0") {
		t.Fatalf("outputs: %q", out)
	}
	if b, err := exec.Command(bin, "replay", "--home", home, "last").CombinedOutput(); err != nil {
		t.Fatalf("replay: %v\n%s", err, b)
	}
}
