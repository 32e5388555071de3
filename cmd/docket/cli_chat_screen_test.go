package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// answeredChatDirs makes a workspace, a Docket home and a model script
// that answers "Answered." once, for a chat started on a screen.
func answeredChatDirs(t *testing.T) (ws, home, script string) {
	t.Helper()
	dir := t.TempDir()
	ws, home = filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	script = filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(script, []byte(`{"output":[{"type":"message","content":"Answered."}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, home, script
}

// startChatScreen runs docket chat on a pty whose far side is a vtScreen
// of rows x cols; answer says whether it answers the terminal queries.
func startChatScreen(t *testing.T, bin string, rows, cols int, answer bool, args ...string) (*exec.Cmd, *os.File, *vtScreen) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	env := []string{"NO_COLOR=1", "TERM=xterm-256color"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "TERM=") && !strings.HasPrefix(kv, "COLORFGBG=") && !strings.HasPrefix(kv, "CI=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		t.Fatalf("start under a pty: %v", err)
	}
	t.Cleanup(func() { f.Close(); _ = cmd.Process.Kill() })
	return cmd, f, newVTScreen(f, rows, cols, answer)
}

// statusFragment reports a line of the final screen or scrollback that
// holds a piece of the status line: after quitting, none may.
func statusFragment(lines []string) (string, bool) {
	for _, l := range lines {
		for _, sig := range []string{"Enter s", "Esc interr", "approvals never ·", " · tokens "} {
			if strings.Contains(l, sig) {
				return l, true
			}
		}
	}
	return "", false
}

func waitExit(t *testing.T, cmd *exec.Cmd, scr *vtScreen) string {
	t.Helper()
	hung := time.AfterFunc(90*time.Second, func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	if !hung.Stop() {
		t.Fatalf("docket did not exit; it showed:\n%s", scr.text())
	}
	if err != nil {
		t.Fatalf("chat: %v\n%s", err, scr.text())
	}
	return scr.waitDone()
}

func typeKeys(t *testing.T, f *os.File, s string) {
	t.Helper()
	if _, err := f.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// TestChatScreenAsAPersonSeesIt drives docket chat on a real pty whose far
// side is a terminal emulator answering the colour and cursor queries,
// and checks the screen and scrollback a person is left with: Go code
// with its tabs as indentation and a table in columns; a manual /compact
// not called automatic; Esc interrupting a running command; a multi-line
// prompt keeping its first line; a 200-line paste collapsed into a note;
// no piece of the status line left in the scrollback after the long
// notices and quitting; and, resumed, the earlier conversation shown.
func TestChatScreenAsAPersonSeesIt(t *testing.T) {
	bin := cliBinary(t)
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	answer := "Here is the fix:\n\n```go\nfunc run() error {\n\tif err := load(); err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n```\n\n" +
		"| package | tests |\n|---|--:|\n| engine | 112 |\n| sandbox | 48 |\n"
	msg := func(s string) string {
		b, _ := json.Marshal(s)
		return `{"output":[{"type":"message","content":` + string(b) + `}]}`
	}
	script := strings.Join([]string{
		msg(answer),
		`{"compact":true,"output":[{"type":"message","content":"Summary: showed the fix."}]}`,
		`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["sleep","300"]}}]}`,
		msg("Got the log."),
	}, "\n") + "\n"
	sp := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, f, scr := startChatScreen(t, bin, 30, 80, true, "chat", "--skip-git-repo-check", "--home", home, "-C", ws,
		"-a", "never", "-s", "workspace-write", "--model-script", sp)
	scr.waitFor(t, "Enter s")

	typeKeys(t, f, "show me\r")
	shown := scr.waitFor(t, "│    48")
	for _, want := range []string{"    func run() error {\n        if err := load(); err != nil {\n            return err\n", "package │ tests", "sandbox │    48"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the answer is not shown as written; want %q in:\n%s", want, shown)
		}
	}
	if strings.Contains(shown, `\t`) {
		t.Errorf("a tab is shown as an escape:\n%s", shown)
	}
	scr.waitFor(t, "Enter s")

	typeKeys(t, f, "/compact\r")
	shown = scr.waitFor(t, "Summary: showed the fix.")
	if strings.Contains(shown, "automatically") {
		t.Errorf("a manual /compact is announced as automatic:\n%s", shown)
	}

	typeKeys(t, f, "wait a while\r")
	scr.waitFor(t, "[running sandboxed]")
	typeKeys(t, f, "\x1b")
	scr.waitFor(t, "turn interrupted")
	scr.waitFor(t, "Enter s")

	// Alt-Enter, then a bracketed paste of 200 lines.
	var log []string
	for i := range 200 {
		log = append(log, fmt.Sprintf("log line %d", i))
	}
	typeKeys(t, f, "read this\x1b\r")
	typeKeys(t, f, "\x1b[200~"+strings.Join(log, "\r")+"\x1b[201~")
	shown = scr.waitFor(t, "[Pasted 200 lines]")
	if !strings.Contains(shown, "› read this\n") {
		t.Errorf("the first line of the prompt is not on screen:\n%s", shown)
	}
	typeKeys(t, f, "\r")
	shown = scr.waitFor(t, "Got the log.")
	if strings.Contains(shown, "log line 150") {
		t.Errorf("the paste was echoed whole:\n%s", shown)
	}
	scr.waitFor(t, "Enter s")

	typeKeys(t, f, "/quit\r")
	final := waitExit(t, cmd, scr)
	if !strings.Contains(strings.ReplaceAll(final, "\n", ""), "continue it with: docket chat --resume") {
		t.Errorf("no resume hint:\n%s", final)
	}
	if l, ok := statusFragment(strings.Split(final, "\n")); ok {
		t.Errorf("a piece of the status line stayed in the scrollback: %q\n%s", l, final)
	}

	// The prompt journaled (and sent to the model) holds the whole paste.
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
	want := "read this\n" + strings.Join(log, "\n")
	found := false
	for _, rec := range recs {
		if b, err := rec.Decode(); err == nil {
			if u, ok := b.(*events.UserTurn); ok && u.Text == want {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no prompt journaled with the whole paste")
	}

	// Resumed, the session shows its earlier conversation first.
	cmd, f, scr = startChatScreen(t, bin, 30, 80, true, "chat", "--home", home, "--resume", sf.ID)
	shown = scr.waitFor(t, "the conversation goes on from here")
	for _, want := range []string{"› show me\n", "Here is the fix:", "    func run() error {\n        if err", "sandbox │    48",
		"conversation compacted (manual)", "› wait a while", "✗ sleep 300", "› read this\nlog line 0\n", "[… 191 more lines]", "Got the log."} {
		if !strings.Contains(shown, want) {
			t.Errorf("the resumed screen lacks %q:\n%s", want, shown)
		}
	}
	scr.waitFor(t, "Enter s")
	typeKeys(t, f, "\x03")
	final = waitExit(t, cmd, scr)
	if l, ok := statusFragment(strings.Split(final, "\n")); ok {
		t.Errorf("a piece of the status line stayed in the scrollback: %q\n%s", l, final)
	}
}

// TestChatScreenWithATerminalThatAnswersNothing: a terminal that answers
// neither the colour nor the cursor query is not asked either, keeps the
// keys typed before the UI is up, takes a prompt, offers the / popup and the
// /approvals picker, and is left with no status line fragments after
// Ctrl-C quits.
func TestChatScreenWithATerminalThatAnswersNothing(t *testing.T) {
	bin := cliBinary(t)
	ws, home, sp := answeredChatDirs(t)
	cmd, f, scr := startChatScreen(t, bin, 24, 80, false, "chat", "--skip-git-repo-check", "--home", home, "-C", ws,
		"-a", "never", "-s", "workspace-write", "--model-script", sp)
	// Typed at once, before the UI is up: none of it may be lost.
	typeKeys(t, f, "hello")
	scr.waitFor(t, "› hello")
	scr.waitFor(t, "Enter s")
	scr.mu.Lock()
	raw := scr.raw.String()
	scr.mu.Unlock()
	if strings.Contains(raw, "\x1b]11;?") || strings.Contains(raw, "\x1b[6n") {
		t.Errorf("docket asked the terminal for its colour or cursor position; this terminal never answers")
	}
	typeKeys(t, f, "\r")
	scr.waitFor(t, "Answered.")
	scr.waitFor(t, "Enter s")

	// The / popup, and the /approvals picker.
	typeKeys(t, f, "/")
	scr.waitFor(t, "/approvals  show or change")
	typeKeys(t, f, "approvals\r")
	scr.waitFor(t, "never       never ask; failures go back to the model  (now)")
	typeKeys(t, f, "\x1b[A\r")
	scr.waitFor(t, "approval policy is now on-request")
	scr.waitFor(t, "approvals on-request ·")
	typeKeys(t, f, "\x03")
	final := waitExit(t, cmd, scr)
	if l, ok := statusFragment(strings.Split(final, "\n")); ok {
		t.Errorf("a piece of the status line stayed in the scrollback: %q\n%s", l, final)
	}
}

// TestChatAsksToTrustAFolderOutsideGit: outside a git repository chat asks
// whether the folder is trusted, as Codex does, instead of exiting; yes
// opens the UI for the session, no exits without starting anything.
func TestChatAsksToTrustAFolderOutsideGit(t *testing.T) {
	bin := cliBinary(t)
	for _, tc := range []struct {
		answer string
		opens  bool
	}{{"y", true}, {"n", false}} {
		t.Run(tc.answer, func(t *testing.T) {
			ws, home, sp := answeredChatDirs(t)
			cmd, f, scr := startChatScreen(t, bin, 24, 100, true, "chat", "--home", home, "-C", ws, "-a", "never", "-s", "workspace-write", "--model-script", sp)
			scr.waitFor(t, "Do you trust the files in this folder")
			typeKeys(t, f, tc.answer+"\r")
			if !tc.opens {
				hung := time.AfterFunc(90*time.Second, func() { _ = cmd.Process.Kill() })
				err := cmd.Wait()
				hung.Stop()
				if err == nil || !strings.Contains(scr.waitDone(), "not inside a git repository") {
					t.Fatalf("a folder not trusted: exit %v\n%s", err, scr.text())
				}
				return
			}
			scr.waitFor(t, "Enter s")
			typeKeys(t, f, "hello\r")
			scr.waitFor(t, "Answered.")
			scr.waitFor(t, "Enter s")
			typeKeys(t, f, "\x03")
			waitExit(t, cmd, scr)
		})
	}
}

// TestChatNarrowedWindowShowsOnePrompt narrows the window of a terminal
// that reflows its rows (VTE, kitty, iTerm2): the prompt is drawn once,
// not again under its old copy.
func TestChatNarrowedWindowShowsOnePrompt(t *testing.T) {
	bin := cliBinary(t)
	ws, home, sp := answeredChatDirs(t)
	cmd, f, scr := startChatScreen(t, bin, 24, 120, true, "chat", "--skip-git-repo-check", "--home", home, "-C", ws,
		"-a", "never", "-s", "workspace-write", "--model-script", sp)
	scr.waitFor(t, "Enter s")
	scr.reflow(70)
	if err := pty.Setsize(f, &pty.Winsize{Rows: 24, Cols: 70}); err != nil {
		t.Fatal(err)
	}
	typeKeys(t, f, "x") // a change to draw after the resize
	shown := scr.waitFor(t, "› x")
	if n := strings.Count(shown, "Ask Docket to do something"); n != 0 {
		t.Errorf("the placeholder prompt is still shown %d times after narrowing and typing:\n%s", n, shown)
	}
	if n := strings.Count(shown, "› "); n != 1 {
		t.Errorf("the prompt is shown %d times after narrowing:\n%s", n, shown)
	}
	typeKeys(t, f, "\x03\x03")
	waitExit(t, cmd, scr)
}

// TestChatNarrowedWindowShowsAWideLiveLineOnce narrows the window of a
// reflowing terminal while the live area holds a line wider than the new
// width (a long typed prompt): the terminal wraps it into more rows than
// the renderer drew, and the redraw must still start at the live area's
// top, leaving no copy of the prompt above it (issue 30).
func TestChatNarrowedWindowShowsAWideLiveLineOnce(t *testing.T) {
	bin := cliBinary(t)
	ws, home, sp := answeredChatDirs(t)
	cmd, f, scr := startChatScreen(t, bin, 24, 120, true, "chat", "--skip-git-repo-check", "--home", home, "-C", ws,
		"-a", "never", "-s", "workspace-write", "--model-script", sp)
	scr.waitFor(t, "Enter s")
	// One row of 103 columns at 120, wider than 70.
	prompt := "Qstart " + strings.Repeat("wide ", 18) + "Qend"
	typeKeys(t, f, prompt)
	scr.waitFor(t, "Qend")
	scr.reflow(70)
	if err := pty.Setsize(f, &pty.Winsize{Rows: 24, Cols: 70}); err != nil {
		t.Fatal(err)
	}
	// Only the frame drawn at the new width wraps the prompt in the input,
	// whose every row starts with the prompt mark (the terminal's own
	// wrapping of the old row does not).
	shown := scr.waitFor(t, "› wide")
	if n := strings.Count(shown, "Qstart"); n != 1 {
		t.Errorf("the typed prompt is shown %d times after narrowing:\n%s", n, shown)
	}
	if n := strings.Count(shown, "approvals never"); n != 1 {
		t.Errorf("the status line is shown %d times after narrowing:\n%s", n, shown)
	}
	typeKeys(t, f, "\x03\x03")
	waitExit(t, cmd, scr)
}
