package e2e

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// The storm's shapes beyond `docket exec` killed and resumed once (issue
// 27): the same session run in `docket chat` on a pty and killed there,
// every call judged by an unsandboxed pre_tool hook that leaves a
// background process, several resumes of the killed session started at
// once, and a tree of subagents (treeScript) killed at one of the points
// its own clean run passed or within its own length, whose every journal
// is checked. Each trial still checks every invariant of storm_test.go, and the
// shapes add their own: racing resumes either finish the session or say
// it is in use. A hook's background process may outlive a killed docket
// (what docs/sandbox.md promises no more than); the storm ends it, and
// fails only a run that was not killed and left one.
const (
	shapeExec   = "exec"
	shapeChat   = "chat on a pty"
	shapeHooks  = "unsandboxed hooks"
	shapeRacing = "racing resumes"
	shapeTree   = "subagent tree"
)

var stormShapes = []string{shapeExec, shapeChat, shapeHooks, shapeRacing, shapeTree}

// treeScript is the subagent tree's session: the parent starts a and b at
// once, then runs a call of its own; a runs three calls (two at once), b
// one and starts its own subagent c, which runs one. Every shell call marks
// runs.log, so a command run twice anywhere in the tree shows.
func treeScript() string {
	mark := func(id, delay string) string {
		args := `["./mark.sh",` + fmt.Sprintf("%q", id)
		if delay != "" {
			args += fmt.Sprintf(",%q", delay)
		}
		return fmt.Sprintf(`{"type":"function_call","call_id":%q,"name":"shell","arguments":{"command":%s]}}`, id, args)
	}
	agent := func(name string, items ...string) string {
		return `{"agent":"` + name + `","output":[` + strings.Join(items, ",") + `]}`
	}
	lines := []string{
		spawnLine([2]string{"p1", `{"prompt":"one","name":"a"}`}, [2]string{"p2", `{"prompt":"two","name":"b"}`}),
		`{"output":[` + mark("r1", "") + `]}`,
		says("tree done"),
		agent("a", mark("a1", ""), mark("a2", "0.3")),
		agent("a", mark("a3", "")),
		agentSays("a", "a done"),
		agent("b", mark("b1", "0.3")),
		agent("b", `{"type":"function_call","call_id":"q1","name":"spawn_agent","arguments":{"prompt":"three","name":"c"}}`),
		agentSays("b", "b done"),
		agent("c", mark("c1", "0.2")),
		agentSays("c", "c done"),
	}
	return strings.Join(lines, "\n") + "\n"
}

// treeTrial makes a trial a subagent tree's.
func (s *storm) treeTrial(tr *stormTrial) {
	tr.script = s.tree
	tr.extra = []string{"-c", "subagents.enabled=true"}
}

// treePoints runs the subagent tree once cleanly and returns the fault
// points it passed and how long the run took (a timed kill past it would
// kill nothing); the clean run must leave the four sessions.
func (s *storm) treePoints(t *testing.T) ([]string, time.Duration) {
	s.tree = filepath.Join(t.TempDir(), "tree.jsonl")
	if err := os.WriteFile(s.tree, []byte(treeScript()), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := s.newTrial(t)
	s.treeTrial(tr)
	start := time.Now()
	pts := s.faultLog(t, tr)
	took := time.Since(start)
	if all := stormJournals(t, tr); len(all) != 4 {
		t.Fatalf("the clean subagent tree left %d journals, want 4 (parent, a, b, c): %v", len(all), all)
	}
	t.Logf("subagent tree: %d fault points in a clean run of %s", len(pts), took.Round(time.Millisecond))
	return pts, took
}

// chatCap bounds a chat trial that no kill ended: the chat UI does not end
// when its turn does, so the storm kills it then.
const chatCap = 20 * time.Second

// withHooks gives the trial a pre_tool hook, run without the sandbox, for
// every call: it starts a background process named by the trial's token
// and waits a little, so that a kill often lands while it runs.
func (s *storm) withHooks(t *testing.T, tr *stormTrial) {
	tr.token = randomToken(t)
	hook := filepath.Join(tr.home, "hook-"+tr.token+".sh")
	body := fmt.Sprintf("#!/bin/sh\ncat >/dev/null\nsh -c ': %s; sleep 60' &\nsleep 0.1\nexit 0\n", tr.token)
	if err := os.WriteFile(hook, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(tr.home, "config.toml")
	old, _ := os.ReadFile(cfg)
	add := fmt.Sprintf("\n[[hooks.pre_tool]]\ntool = \"shell\"\nargv_prefix = [\"./mark.sh\"]\ncommand = [%q]\nsandbox = false\ntimeout_sec = 30\n", hook)
	// Top-level keys cannot follow a table: the hook table goes last.
	if err := os.WriteFile(cfg, append(old, add...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hookLeftovers lists the processes of the trial's hooks still running.
func hookLeftovers(t *testing.T, tr *stormTrial) []string {
	if tr.token == "" {
		return nil
	}
	return processesWith(t, tr.token)
}

// chat runs the session in `docket chat` on a pty, killed at tr.crash,
// after tr.after, or after chatCap.
func (s *storm) chat(t *testing.T, tr *stormTrial) result {
	t.Helper()
	cmd := exec.Command(s.fault, "chat", "--skip-git-repo-check", "--home", tr.home, "-C", tr.ws, "-a", "untrusted", "-s", "workspace-write",
		"-c", "approval_timeout_sec=1", "--model-script", s.script, "--decisions", s.decisions, "go")
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "DOCKET_CRASH_AT="+tr.crash)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var screen bytes.Buffer
	var mu sync.Mutex
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	after := tr.after
	if tr.crash != "" || after <= 0 {
		after = chatCap
	}
	timer := time.AfterFunc(after, func() { _ = cmd.Process.Kill() })
	err = cmd.Wait()
	timer.Stop()
	mu.Lock()
	shown := screen.String()
	mu.Unlock()
	r := result{code: cmd.ProcessState.ExitCode(), stderr: lastLine(shown)}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.signaled = true
	} else if err != nil && r.code <= 0 {
		t.Fatalf("chat: %v", err)
	}
	return r
}

// racingResumes starts n resumes of the killed session at once. Each must
// finish it (exit 0) or refuse because another holds the session; any
// other outcome is a finding. It returns the findings.
func (s *storm) racingResumes(path string, tr *stormTrial, n int) []string {
	type res struct {
		code   int
		stderr string
		err    error
	}
	out := make([]res, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(s.bin, "resume", path, "--home", tr.home, "--model-script", s.modelScript(tr),
				"--decisions", strings.TrimSuffix(strings.Repeat("approved,", 16), ","))
			cmd.Env = append(os.Environ(), "DOCKET_CRASH_AT=")
			var errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = io.Discard, &errb
			if err := cmd.Start(); err != nil {
				out[i] = res{err: err}
				return
			}
			timer := time.AfterFunc(s.hang, func() { _ = cmd.Process.Kill() })
			err := cmd.Wait()
			timer.Stop()
			out[i] = res{code: cmd.ProcessState.ExitCode(), stderr: errb.String()}
			if err != nil && out[i].code <= 0 {
				out[i].err = err
			}
		}()
	}
	wg.Wait()
	var findings []string
	for i, r := range out {
		switch {
		case r.err != nil:
			findings = append(findings, fmt.Sprintf("resume %d: %v", i, r.err))
		case r.code != 0 && !strings.Contains(r.stderr, "in use"):
			findings = append(findings, fmt.Sprintf("resume %d exited %d: %s", i, r.code, lastLine(r.stderr)))
		}
	}
	return findings
}
