package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// ansiRE matches the escape sequences a terminal UI writes: CSI (cursor
// moves, colours, erases), OSC (titles) and the two-byte ones.
var ansiRE = regexp.MustCompile(`\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[0-9=>78DEHMNOZc]`)

// ttyScreen collects what a program writes to its pty, with escape
// sequences removed, so a test can wait for text to appear.
type ttyScreen struct {
	mu   sync.Mutex
	cond *sync.Cond
	raw  strings.Builder
	done bool
}

func newTTYScreen(f *os.File) *ttyScreen {
	s := &ttyScreen{}
	s.cond = sync.NewCond(&s.mu)
	go func() {
		buf := make([]byte, 8192)
		for {
			n, err := f.Read(buf)
			s.mu.Lock()
			s.raw.Write(buf[:n])
			if err != nil {
				s.done = true
			}
			s.cond.Broadcast()
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

// text is everything shown so far, without escapes and carriage returns.
func (s *ttyScreen) textLocked() string {
	return strings.ReplaceAll(ansiRE.ReplaceAllString(s.raw.String(), ""), "\r", "")
}

// mark returns how much has been shown, for waitAfter.
func (s *ttyScreen) mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.textLocked())
}

// waitFor waits until want has been shown after position from. The
// deadline only bounds a hang (it fails the test with the screen so far);
// nothing is asserted about how long it took.
func (s *ttyScreen) waitFor(t testing.TB, from int, want string) string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	wake := time.AfterFunc(time.Until(deadline), func() { s.mu.Lock(); s.cond.Broadcast(); s.mu.Unlock() })
	defer wake.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		text := s.textLocked()
		if from > len(text) {
			from = len(text)
		}
		if strings.Contains(text[from:], want) {
			return text
		}
		if s.done || time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q (closed: %v); it shows:\n%s", want, s.done, text[from:])
		}
		s.cond.Wait()
	}
}

// chatRun is one docket process on a pty.
type chatRun struct {
	t   testing.TB
	cmd *exec.Cmd
	pty *os.File
	scr *ttyScreen
}

func startChat(t testing.TB, bin string, args ...string) *chatRun {
	t.Helper()
	return startChatEnv(t, bin, nil, args...)
}

// startChatEnv is startChat with env (NAME=VALUE) added to docket's
// environment, so that a parallel test need not set the process's.
func startChatEnv(t testing.TB, bin string, env []string, args ...string) *chatRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "TERM=xterm-256color"), env...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatalf("start under a pty: %v", err)
	}
	t.Cleanup(func() { f.Close(); _ = cmd.Process.Kill() })
	return &chatRun{t: t, cmd: cmd, pty: f, scr: newTTYScreen(f)}
}

// idleAfter waits for want after position from, then for the status line
// to say the turn has ended (commands that change the session wait for it).
func (r *chatRun) idleAfter(from int, want string) string {
	r.t.Helper()
	shown := r.scr.waitFor(r.t, from, want)
	return r.scr.waitFor(r.t, strings.LastIndex(shown, want), "Enter send")
}

// typeText types text, then presses Enter as a separate keystroke.
func (r *chatRun) typeLine(text string) {
	r.t.Helper()
	r.keys(text)
	r.keys("\r")
}

func (r *chatRun) keys(s string) {
	r.t.Helper()
	if _, err := r.pty.Write([]byte(s)); err != nil {
		r.t.Fatal(err)
	}
}

// wait waits for the process to exit; one that does not within the bound
// is killed and the test fails with the screen.
func (r *chatRun) wait() (int, string) {
	r.t.Helper()
	hung := time.AfterFunc(90*time.Second, func() { _ = r.cmd.Process.Kill() })
	err := r.cmd.Wait()
	if !hung.Stop() {
		r.scr.mu.Lock()
		shown := r.scr.textLocked()
		r.scr.mu.Unlock()
		r.t.Fatalf("docket did not exit; it showed:\n%s", shown)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatal(err)
	}
	r.scr.mu.Lock()
	for !r.scr.done {
		r.scr.cond.Wait()
	}
	text := r.scr.textLocked()
	r.scr.mu.Unlock()
	return code, text
}

var resumeHintRE = regexp.MustCompile(`docket chat --resume ([0-9a-f-]{36})`)

// TestChatSessionEndToEnd drives the built binary's interactive UI over a
// real pty with the scripted model: a streamed answer, an approval
// answered in the overlay, a policy change, a Ctrl-C interrupt of a
// running command, quitting, resuming, and finally a verify replay of the
// journal the whole thing wrote.
func TestChatSessionEndToEnd(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	script := `{"output":[{"type":"message","content":"Hello from the scripted model."}],"usage":{"input_tokens":120,"output_tokens":8}}
{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["bash","-c","echo made > made.txt"]}}]}
{"output":[{"type":"message","content":"Made the file."}]}
{"compact":true,"output":[{"type":"message","content":"Summary: greeted, made made.txt."}]}
{"output":[{"type":"function_call","call_id":"c2","name":"shell","arguments":{"command":["sleep","300"]}}]}
{"output":[{"type":"message","content":"Resumed and answered."}]}
`
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("the notes' content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startChat(t, bin, "chat", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "untrusted", "-s", "workspace-write", "--model-script", sp)
	r.scr.waitFor(t, 0, "approvals untrusted")

	// A prompt with an @ reference completed from the workspace: the
	// answer streams in and is rendered.
	at := r.scr.mark()
	r.keys("say hello about @not")
	r.scr.waitFor(t, at, "› notes.txt")
	r.keys("\t")
	r.scr.waitFor(t, at, "say hello about @notes.txt")
	at = r.scr.mark()
	r.keys("\r")
	r.scr.waitFor(t, at, "Hello from the scripted model.")
	r.scr.waitFor(t, at, "tokens 128/")

	// A command under untrusted: the overlay shows the exact argv and the
	// line prompt's choices; y approves it.
	at = r.scr.mark()
	r.typeLine("make the file")
	shown := r.scr.waitFor(t, at, "[y] approve")
	for _, s := range []string{"Approval requested for call c1 (exec, initial)", "command: bash -c 'echo made > made.txt'", "[f] deny and tell the model why", "[a] abort the turn"} {
		if !strings.Contains(shown[at:], s) {
			t.Errorf("the overlay lacks %q:\n%s", s, shown[at:])
		}
	}
	r.keys("y")
	r.idleAfter(at, "Made the file.")
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}

	// /compact replaces the conversation with the model's summary.
	at = r.scr.mark()
	r.typeLine("/compact")
	r.scr.waitFor(t, at, "Summary: greeted, made made.txt.")

	// The policy changes for the rest of the session: the next command
	// runs without asking, and Ctrl-C interrupts it.
	at = r.scr.mark()
	r.typeLine("/approvals never")
	r.scr.waitFor(t, at, "approval policy is now never")
	at = r.scr.mark()
	r.typeLine("wait a while")
	r.scr.waitFor(t, at, "[running sandboxed]")
	r.keys("\x03")
	r.scr.waitFor(t, at, "turn interrupted")
	at = r.scr.mark()
	r.typeLine("/quit")
	code, out := r.wait()
	if code != 0 {
		t.Fatalf("chat exited %d:\n%s", code, out)
	}
	m := resumeHintRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no resume hint at quit:\n%s", out[at:])
	}
	id := m[1]

	// Resumed in the UI, the session goes on with the recorded model and
	// the changed policy.
	r = startChat(t, bin, "chat", "--home", home, "--resume", id)
	r.scr.waitFor(t, 0, "approvals never")
	at = r.scr.mark()
	r.typeLine("and now?")
	shown = r.scr.waitFor(t, at, "Resumed and answered.")
	r.scr.waitFor(t, strings.LastIndex(shown, "Resumed and answered."), "Enter send") // the turn has ended
	r.keys("\x03")                                                                    // idle, nothing typed: quits
	if code, out := r.wait(); code != 0 {
		t.Fatalf("resumed chat exited %d:\n%s", code, out)
	}

	// The @ reference was journaled with the prompt, content and all.
	sf, err := journal.Find(home, id)
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
	var attached, compactions, policies int
	for _, rec := range recs {
		b, err := rec.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch v := b.(type) {
		case *events.UserTurn:
			for _, a := range v.Attachments {
				if a.Path == "notes.txt" && a.Content == "the notes' content\n" {
					attached++
				}
			}
		case *events.Compaction:
			compactions++
		case *events.PolicyChanged:
			policies++
		}
	}
	if attached != 1 || compactions != 1 || policies != 1 {
		t.Fatalf("journal: %d attachments of notes.txt, %d compactions, %d policy changes; want 1 each", attached, compactions, policies)
	}

	// The journal verify-replays, and the interrupt is a cancellation in
	// the audit, never a denial.
	rep := exec.Command(bin, "replay", "--home", home, id)
	if out, err := rep.CombinedOutput(); err != nil || !strings.Contains(string(out), "replay ok") {
		t.Fatalf("replay: %v\n%s", err, out)
	}
	aud := exec.Command(bin, "audit", "--home", home, "--json", id)
	aout, err := aud.Output()
	if err != nil {
		t.Fatalf("audit: %v\n%s", err, aout)
	}
	var report struct {
		Calls []struct {
			CallID      string `json:"call_id"`
			Outcome     string `json:"outcome"`
			Transitions []struct {
				Cause string `json:"cause"`
			} `json:"transitions"`
			Decisions []struct {
				Decision string `json:"decision"`
			} `json:"decisions"`
		} `json:"calls"`
		Events []struct {
			Kind       string `json:"kind"`
			Compaction *struct {
				Trigger string `json:"trigger"`
				Summary string `json:"summary"`
			} `json:"compaction"`
			Prompt *struct {
				Attachments []struct {
					Path string `json:"path"`
				} `json:"attachments"`
			} `json:"prompt"`
			Policy *struct {
				ApprovalPolicy string `json:"approval_policy"`
				Previous       string `json:"previous"`
			} `json:"policy_change"`
		} `json:"events"`
	}
	if err := json.Unmarshal(aout, &report); err != nil {
		t.Fatalf("audit JSON: %v\n%s", err, aout)
	}
	// The audit shows the attachment, the /compact and the /approvals
	// change, in that order.
	if ev := report.Events; len(ev) != 3 || ev[0].Prompt == nil || len(ev[0].Prompt.Attachments) != 1 ||
		ev[0].Prompt.Attachments[0].Path != "notes.txt" || ev[1].Compaction == nil || ev[1].Compaction.Trigger != "manual" ||
		ev[1].Compaction.Summary != "Summary: greeted, made made.txt." ||
		ev[2].Policy == nil || ev[2].Policy.ApprovalPolicy != "never" || ev[2].Policy.Previous != "untrusted" {
		t.Errorf("audit events: want notes.txt attached, the manual compaction, then the policy change:\n%s", aout)
	}
	found := false
	for _, c := range report.Calls {
		if c.CallID != "c2" {
			continue
		}
		found = true
		if c.Outcome != "interrupted" || len(c.Decisions) != 0 {
			t.Errorf("c2: outcome %q, decisions %+v; want interrupted with no decision", c.Outcome, c.Decisions)
		}
		last := c.Transitions[len(c.Transitions)-1].Cause
		if last != "cancelled" {
			t.Errorf("c2 ended with cause %q, want cancelled", last)
		}
	}
	if !found {
		t.Fatalf("the audit has no call c2:\n%s", aout)
	}
}

// Without a terminal, or with --json, chat is exec: the same output, and
// nothing of the UI (escape sequences, the status line) reaches stdout.
func TestChatWithoutTerminalOrWithJSONIsExec(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(`{"output":[{"type":"message","content":"Plain answer."}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"chat", "--skip-git-repo-check", "--home", home, "-C", ws, "--model-script", sp}

	t.Run("json on a terminal", func(t *testing.T) {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer ptmx.Close()
		if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120}); err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd := exec.Command(bin, append(args, "--json", "hello")...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, &stderr
		cmd.Env = append(os.Environ(), "TERM=xterm-256color")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		tty.Close()
		scr := newTTYScreen(ptmx)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("chat --json: %v\n%s", err, stderr.String())
		}
		scr.mu.Lock()
		for !scr.done {
			scr.cond.Wait()
		}
		raw := scr.raw.String()
		scr.mu.Unlock()
		if strings.ContainsRune(raw, 0x1b) {
			t.Fatalf("escape sequences in the JSONL output: %q", raw)
		}
		lines := 0
		for _, l := range strings.Split(strings.ReplaceAll(raw, "\r", ""), "\n") {
			if strings.TrimSpace(l) == "" {
				continue
			}
			lines++
			var v map[string]any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Fatalf("not JSON: %q (%v)", l, err)
			}
		}
		if lines < 3 || !strings.Contains(raw, `"Plain answer."`) {
			t.Fatalf("%d JSONL lines, answer missing:\n%s", lines, raw)
		}
	})

	t.Run("stdin not a terminal", func(t *testing.T) {
		cmd := exec.Command(bin, append(args, "hello")...)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("chat without a terminal: %v", err)
		}
		if strings.TrimSpace(string(out)) != "Plain answer." || strings.ContainsRune(string(out), 0x1b) {
			t.Fatalf("stdout %q, want exec's final message alone", out)
		}
	})
}

// docket alone, on a terminal, is the interactive session.
func TestDocketAloneOnATerminalIsChat(t *testing.T) {
	t.Parallel()
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
	if err := os.WriteFile(sp, []byte(`{"output":[{"type":"message","content":"Answer from the default entry."}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "model_provider = \"script\"\nmodel_script = " + strconv.Quote(sp) + "\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "TERM=xterm-256color", "DOCKET_HOME="+home)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	r := &chatRun{t: t, cmd: cmd, pty: f, scr: newTTYScreen(f)}
	t.Cleanup(func() { f.Close(); _ = cmd.Process.Kill() })
	r.scr.waitFor(t, 0, "approvals")
	r.typeLine("hi")
	r.idleAfter(0, "Answer from the default entry.")
	// /diff: git's diff of the workspace, with the untracked files named.
	if err := os.WriteFile(filepath.Join(ws, "fresh.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := r.scr.mark()
	r.typeLine("/diff")
	r.scr.waitFor(t, at, "untracked files:")
	r.scr.waitFor(t, at, "fresh.txt")
	// The mark is taken before the key: the redraw q causes can come
	// before a mark taken after it, and then nothing more is drawn.
	at = r.scr.mark()
	r.keys("q")
	r.scr.waitFor(t, at, "Enter send")
	r.keys("\x03")
	if code, out := r.wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// A command the sandbox blocks goes through the retry prompt in the
// overlay (which says a yes runs it without the sandbox) and reruns
// unsandboxed once approved; /new and /resume switch sessions inside the UI.
func TestChatRetryPromptAndSwitchingSessions(t *testing.T) {
	t.Parallel()
	bin := cliBinary(t)
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	outside, err := os.MkdirTemp("/var/tmp", "docket-chat-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	target := filepath.Join(outside, "written.txt")
	script := `{"output":[{"type":"function_call","call_id":"w1","name":"shell","arguments":{"command":["bash","-c","echo hi > ` + target + `"]}}]}
{"output":[{"type":"message","content":"Wrote it outside."}]}
`
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startChat(t, bin, "chat", "--skip-git-repo-check", "--home", home, "-C", ws, "-a", "on-failure", "-s", "workspace-write", "--model-script", sp)
	first := r.scr.waitFor(t, 0, "approvals on-failure")
	at := r.scr.mark()
	r.typeLine("write outside")
	shown := r.scr.waitFor(t, at, "[y] approve")
	for _, s := range []string{"(exec, retry)", "WITHOUT THE SANDBOX", "[sandbox denied it: waiting for approval to retry unsandboxed]"} {
		if !strings.Contains(shown[at:], s) {
			t.Errorf("the retry prompt lacks %q:\n%s", s, shown[at:])
		}
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the sandbox let the write through before the retry was approved")
	}
	r.keys("y")
	r.idleAfter(at, "Wrote it outside.")
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("the approved retry did not write: %v", err)
	}
	id := first[strings.LastIndex(first, "\n")+1:]
	id = strings.TrimSpace(id[:strings.Index(id, " ")])

	// /audit shows this session's audit so far in a pager: the retried
	// call and why it ran unsandboxed.
	at = r.scr.mark()
	r.typeLine("/audit")
	r.scr.waitFor(t, at, "audit of session")
	r.scr.waitFor(t, at, "w1")
	r.scr.waitFor(t, at, "q close")
	at = r.scr.mark() // before the key, as in TestDocketAloneOnATerminalIsChat
	r.keys("q")
	r.scr.waitFor(t, at, "Enter send")

	at = r.scr.mark()
	r.typeLine("/new")
	r.scr.waitFor(t, at, "new session ")
	at = r.scr.mark()
	r.typeLine("/resume " + id)
	r.scr.waitFor(t, at, "resumed session "+id)
	at = r.scr.mark()
	r.typeLine("/status")
	r.scr.waitFor(t, at, "approvals: on-failure")
	r.typeLine("/quit")
	if code, out := r.wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}
