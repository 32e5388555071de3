package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// TestSubagentAsksOnTheParentsTerminal: a subagent's request is put to the
// person at the parent's terminal, labelled with the child's name and
// session; the typed answer decides what the child runs and is journaled in
// the child as the user's.
func TestSubagentAsksOnTheParentsTerminal(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	script := `{"output":[{"type":"function_call","call_id":"p1","name":"spawn_agent","arguments":{"prompt":"make it","name":"maker"}}]}
{"output":[{"type":"message","content":"Parent finished."}]}
{"agent":"maker","output":[{"type":"function_call","call_id":"m1","name":"shell","arguments":{"command":["bash","-c","echo made > made.txt"]}}]}
{"agent":"maker","output":[{"type":"message","content":"made it"}]}
`
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "untrusted",
		"-s", "workspace-write", "-c", "subagents.enabled=true", "--model-script", sp, "go")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatalf("start under a pty: %v", err)
	}
	defer ptmx.Close()
	scr := newCLIScreen(ptmx)
	shown := scr.waitFor(t, "answer (y/s/")
	if !strings.Contains(shown, "Approval requested by subagent maker (session ") || !strings.Contains(shown, "for its call maker/m1 (exec, initial)") {
		t.Errorf("the prompt does not name the subagent and its call:\n%s", shown)
	}
	if _, err := ptmx.Write([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exec: %v\n%s", err, scr.all())
	}
	if b, err := os.ReadFile(filepath.Join(ws, "made.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("the approved child command did not run: %q %v", b, err)
	}
	files, _, err := journal.List(home)
	if err != nil || len(files) != 2 {
		t.Fatalf("sessions %v %v, want parent and child", files, err)
	}
	found := false
	for _, f := range files {
		_ = journal.Scan(f.Path, 1, func(r events.Record) error {
			if r.Kind != events.KindDecision {
				return nil
			}
			b, err := r.Decode()
			if err != nil {
				return err
			}
			d := b.(*events.Decision)
			found = found || (d.CallID == "m1" && d.Decision == events.Approved && d.Source == events.SourceUser)
			return nil
		})
	}
	if !found {
		t.Error("no decision for m1 journaled as the user's approval")
	}
}

// TestCtrlCWhileASubagentWaitsAtTheTerminal: the operator interrupts while
// a subagent's request is on the parent's terminal. The request is not
// answered (no decision is journaled), the child's call ends interrupted
// (cancelled) through its own state machine, and its command never runs.
func TestCtrlCWhileASubagentWaitsAtTheTerminal(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	script := `{"output":[{"type":"function_call","call_id":"p1","name":"spawn_agent","arguments":{"prompt":"make it","name":"maker"}}]}
{"output":[{"type":"message","content":"Parent finished."}]}
{"agent":"maker","output":[{"type":"function_call","call_id":"m1","name":"shell","arguments":{"command":["bash","-c","echo made > made.txt"]}}]}
{"agent":"maker","output":[{"type":"message","content":"made it"}]}
`
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "untrusted",
		"-s", "workspace-write", "-c", "subagents.enabled=true", "--model-script", sp, "go")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatalf("start under a pty: %v", err)
	}
	defer ptmx.Close()
	scr := newCLIScreen(ptmx)
	scr.waitFor(t, "for its call maker/m1")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitFailed {
		t.Errorf("exec after Ctrl-C: %v, want exit %d\n%s", err, exitFailed, scr.all())
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err == nil {
		t.Error("the child's command ran after the interrupt")
	}
	files, _, err := journal.List(home)
	if err != nil || len(files) != 2 {
		t.Fatalf("sessions %v %v, want parent and child", files, err)
	}
	lastMove := map[string]string{}
	decisions := 0
	for _, f := range files {
		_ = journal.Scan(f.Path, 1, func(r events.Record) error {
			switch r.Kind {
			case events.KindDecision:
				decisions++
			case events.KindTransition:
				b, err := r.Decode()
				if err != nil {
					return err
				}
				tr := b.(*events.Transition)
				lastMove[tr.CallID] = tr.Event + ":" + tr.Cause
			}
			return nil
		})
	}
	if decisions != 0 {
		t.Errorf("%d decisions journaled; an interrupt is nobody's answer", decisions)
	}
	for _, c := range []string{"m1", "p1"} {
		if lastMove[c] != "interrupt:cancelled" {
			t.Errorf("call %s ended %q, want interrupt:cancelled", c, lastMove[c])
		}
	}
}
