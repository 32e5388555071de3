package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// writeScript writes a model script of the given lines.
func writeScript(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// replies is a script of plain messages, one a turn.
func replies(t *testing.T, msgs ...string) string {
	lines := make([]string, len(msgs))
	for i, m := range msgs {
		lines[i] = `{"output":[{"type":"message","content":"` + m + `"}]}`
	}
	return writeScript(t, lines...)
}

// prompts returns the user prompts a session's journal holds, in order.
func prompts(t *testing.T, home, id string) []string {
	t.Helper()
	sf, err := journal.Find(home, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	readAllFrom(t, sf.Path, func(b any) {
		if u, ok := b.(*events.UserTurn); ok {
			out = append(out, u.Text)
		}
	})
	return out
}

// sessionIDs lists the sessions under home, newest first.
func sessionIDs(t *testing.T, home string) []string {
	t.Helper()
	files, _, err := journal.List(home)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range files {
		ids = append(ids, f.ID)
	}
	return ids
}

// startSession runs one exec turn in ws and returns the session's id.
func startSession(t *testing.T, home, ws, script, prompt string) string {
	t.Helper()
	before := len(sessionIDs(t, home))
	r := docket(t, nil, "exec", "--skip-git-repo-check", "--home", home, "-C", ws, "--model-script", script, prompt)
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	ids := sessionIDs(t, home)
	if len(ids) != before+1 {
		t.Fatalf("exec made %d sessions, want 1", len(ids)-before)
	}
	return ids[0]
}

func equal(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// TestExecResumeContinuesTheSameSession: Codex's `exec resume` spelling
// adds a turn to the session instead of starting one with the prompt
// "resume".
func TestExecResumeContinuesTheSameSession(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args func(id string) []string
	}{
		{"--last", func(string) []string { return []string{"exec", "resume", "--last"} }},
		{"by id", func(id string) []string { return []string{"exec", "resume", id} }},
		{"exec flags before resume", func(string) []string { return []string{"exec", "--json", "resume", "--last"} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			script := replies(t, "reply one", "reply two")
			id := startSession(t, home, ws, script, "first")
			args := append(tc.args(id), "--home", home, "-C", ws, "--model-script", script, "second")
			r := docket(t, nil, args...)
			if r.code != 0 || !strings.Contains(r.stdout, "reply two") {
				t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
			}
			if ids := sessionIDs(t, home); len(ids) != 1 {
				t.Fatalf("%d sessions after resume, want the one: %v", len(ids), ids)
			}
			if got := prompts(t, home, id); !equal(got, []string{"first", "second"}) {
				t.Fatalf("prompts %q, want first then second", got)
			}
		})
	}
}

// TestResumeLastIsPerProject: --last takes the newest session of the
// workspace, not the newest anywhere; --all takes the newest anywhere.
func TestResumeLastIsPerProject(t *testing.T) {
	t.Parallel()
	home, wsA, wsB := t.TempDir(), t.TempDir(), t.TempDir()
	scriptA, scriptB := replies(t, "a1", "a2"), replies(t, "b1", "b2")
	idA := startSession(t, home, wsA, scriptA, "in A")
	idB := startSession(t, home, wsB, scriptB, "in B")

	r := docket(t, nil, "resume", "--last", "--home", home, "-C", wsA, "--model-script", scriptA, "more in A")
	if r.code != 0 || !strings.Contains(r.stdout, "a2") {
		t.Fatalf("resume --last in A: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if got := prompts(t, home, idA); !equal(got, []string{"in A", "more in A"}) {
		t.Fatalf("session A prompts %q", got)
	}
	r = docket(t, nil, "resume", "--last", "--all", "--home", home, "-C", wsA, "--model-script", scriptB, "more anywhere")
	if r.code != 0 {
		t.Fatalf("resume --last --all: exit %d\n%s", r.code, r.stderr)
	}
	if got := prompts(t, home, idB); !equal(got, []string{"in B", "more anywhere"}) {
		t.Fatalf("--all resumed the wrong session: B's prompts %q", got)
	}
	empty := t.TempDir()
	r = docket(t, nil, "resume", "--last", "--home", home, "-C", empty, "--model-script", scriptA, "x")
	if r.code != 2 || !strings.Contains(r.stderr, "--all") {
		t.Fatalf("--last in a project without sessions: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestResumeWithoutASessionListsTheProjectsSessions: with no terminal,
// resume with no SESSION fails (exit 2) naming this project's sessions
// and no other project's.
func TestResumeWithoutASessionListsTheProjectsSessions(t *testing.T) {
	t.Parallel()
	home, ws, other := t.TempDir(), t.TempDir(), t.TempDir()
	mine := startSession(t, home, ws, replies(t, "r"), "mine")
	theirs := startSession(t, home, other, replies(t, "r"), "theirs")
	r := docket(t, nil, "resume", "--home", home, "-C", ws)
	if r.code != 2 || !strings.Contains(r.stderr, mine) || strings.Contains(r.stderr, theirs) {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 2 listing %s and not %s", r.code, r.stderr, mine, theirs)
	}
}

// TestResumePicksOnATerminal: with stdin a terminal, resume with no
// SESSION lists this project's sessions, newest first, and resumes the one
// whose number is typed (a lone argument is a SESSION, so the picked
// session gets no new prompt: resume says so).
func TestResumePicksOnATerminal(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	script := replies(t, "r1", "r2")
	older := startSession(t, home, ws, script, "older")
	newer := startSession(t, home, ws, replies(t, "n1"), "newer")
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	cmd := exec.Command(docketBin, "resume", "--home", home, "-C", ws, "--model-script", script)
	cmd.Stdin = tty
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	// The terminal buffers the answer until the picker reads it.
	if _, err := ptmx.Write([]byte("2\n")); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("resume: %v\n%s", err, errb.String())
	}
	if !strings.Contains(errb.String(), " 1  "+newer) || !strings.Contains(errb.String(), " 2  "+older) {
		t.Fatalf("the picker did not list newest first:\n%s", errb.String())
	}
	if !strings.Contains(errb.String(), "session "+older+" has no unfinished turn") {
		t.Fatalf("did not resume the picked session:\n%s", errb.String())
	}
}

// TestResumeRefusesWhatASessionCannotChange: flags that would change a
// recorded session's journal, policy or sandbox plan are usage errors on
// resume, and the session is left as it was.
func TestResumeRefusesWhatASessionCannotChange(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	script := replies(t, "one", "two")
	id := startSession(t, home, ws, script, "first")
	for _, flag := range [][]string{{"--ephemeral"}, {"--add-dir", ws}, {"--dangerously-bypass-approvals-and-sandbox"}} {
		args := append([]string{"exec", "resume", "--last", "--home", home, "-C", ws, "--model-script", script}, flag...)
		r := docket(t, nil, append(args, "second")...)
		if r.code != 2 || !strings.Contains(r.stderr, "does not apply to resume") {
			t.Errorf("%v: exit %d, stderr %q", flag, r.code, r.stderr)
		}
	}
	if got := prompts(t, home, id); !equal(got, []string{"first"}) {
		t.Fatalf("the session changed: %q", got)
	}
}
