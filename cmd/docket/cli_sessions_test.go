package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/google/uuid"
)

// cliRun runs docket in-process and returns its exit code and output.
func cliRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// cliTurn is one turn written into a test journal.
type cliTurn struct {
	prompt string
	reply  string            // the model's message; "" for none
	status events.TurnStatus // the turn_ended status; "" for a turn that never ended
}

// cliJournal writes a real journal for a session with the given turns and
// returns its id. keepOpen leaves the writer holding it, as a live session
// does.
func cliJournal(t *testing.T, home, cwd string, turns []cliTurn, keepOpen bool) string {
	t.Helper()
	u, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	id := u.String()
	started := time.Now()
	j, err := journal.Create(home, id, started)
	if err != nil {
		t.Fatal(err)
	}
	at := started
	add := func(body any) {
		at = at.Add(time.Millisecond)
		if _, err := j.Append(at, "", body); err != nil {
			t.Fatal(err)
		}
	}
	add(events.SessionStarted{Version: events.FormatVersion, SessionID: id, StartedAt: started.UnixNano(), Cwd: cwd,
		Config: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}})
	for i, tu := range turns {
		tid := "turn-" + string(rune('1'+i))
		add(events.UserTurn{TurnID: tid, Text: tu.prompt})
		if tu.reply != "" {
			add(events.ModelResponse{TurnID: tid, Request: i + 1, Items: []events.Item{
				{Type: events.ItemReasoning, Text: "thinking"},
				{Type: events.ItemMessage, Role: "assistant", Text: tu.reply},
			}})
		}
		if tu.status != "" {
			add(events.TurnEnded{TurnID: tid, Status: tu.status, Message: tu.reply})
		}
	}
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	if keepOpen {
		t.Cleanup(func() { j.Close() })
	} else if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestSessionsListsNewestFirstWithStateAndPreview(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	long := "line one\n\tline two " + strings.Repeat("x", 100)
	type want struct {
		id, state, preview, cwd string
		turns                   int
	}
	var wants []want
	add := func(state, preview, cwd string, turns []cliTurn, keepOpen bool) {
		id := cliJournal(t, home, cwd, turns, keepOpen)
		n := len(turns)
		if keepOpen {
			n = 0 // a live journal cannot be read: only its id is known
		}
		wants = append([]want{{id, state, preview, cwd, n}}, wants...)
	}
	add("completed", "Done: hello.txt is there.", "/w/a", []cliTurn{{"make hello.txt", "Done: hello.txt is there.", events.TurnCompleted}}, false)
	add("parked", "push it", "/w/b", []cliTurn{{"push it", "", events.TurnParked}}, false)
	add("failed", "fix the build", "/w/c", []cliTurn{{"fix the build", "", events.TurnFailed}}, false)
	add("aborted", "Starting.", "/w/d", []cliTurn{{"go", "Starting.", events.TurnAborted}}, false)
	add("crashed", "second", "/w/e", []cliTurn{{"first", "ok", events.TurnCompleted}, {"second", "", ""}}, false)
	add("completed", preview(long), "/w/f", []cliTurn{{"a", long, events.TurnCompleted}}, false)
	add("running", "", "", []cliTurn{{"still going", "", ""}}, true)

	code, stdout, stderr := cliRun(t, "sessions", "--home", home, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []sessionSummary
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("--json output is not a JSON array: %v\n%s", err, stdout)
	}
	if len(rows) != len(wants) {
		t.Fatalf("%d rows, want %d", len(rows), len(wants))
	}
	for i, w := range wants {
		r := rows[i]
		if r.ID != w.id || r.State != w.state || r.Preview != w.preview || r.Cwd != w.cwd || r.Turns != w.turns {
			t.Errorf("row %d = %+v\nwant %+v", i, r, w)
		}
		if r.Started.IsZero() || time.Since(r.Started) < 0 || r.Path == "" {
			t.Errorf("row %d: started %v path %q", i, r.Started, r.Path)
		}
	}
	if p := rows[1].Preview; len([]rune(p)) != previewRunes || !strings.HasSuffix(p, "…") || strings.ContainsAny(p, "\n\t") {
		t.Errorf("long preview %q is not one cut line", p)
	}
	// The JSON has exactly the documented keys.
	var raw []map[string]any
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "started", "cwd", "turns", "state", "preview", "path"} {
		if _, ok := raw[0][k]; !ok {
			t.Errorf("JSON row lacks %q", k)
		}
	}

	code, stdout, _ = cliRun(t, "sessions", "--home", home)
	if code != exitOK {
		t.Fatalf("table: exit %d", code)
	}
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	if len(lines) != len(wants)+1 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[0], "PREVIEW") {
		t.Fatalf("table:\n%s", stdout)
	}
	for i, w := range wants {
		if !strings.HasPrefix(lines[i+1], w.id) || !strings.Contains(lines[i+1], " "+w.state+" ") {
			t.Errorf("table line %d = %q, want id %s state %s", i+1, lines[i+1], w.id, w.state)
		}
	}
}

func TestSessionsReportsAFileThatIsNotAJournal(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	good := cliJournal(t, home, "/w", []cliTurn{{"hi", "hello", events.TurnCompleted}}, false)
	dir := filepath.Join(home, "sessions", "2026", "01", "01")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000-junk"+journal.Ext), []byte("not bbolt at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cliRun(t, "sessions", "--home", home, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []sessionSummary
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].ID != good || rows[0].State != "completed" {
		t.Fatalf("rows = %+v", rows)
	}
	if rows[1].State != sessionUnreadable || !strings.Contains(rows[1].Problem, "not a docket journal") {
		t.Errorf("junk row = %+v", rows[1])
	}
}

func TestSessionsWithNoneAndBadUsage(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	code, stdout, _ := cliRun(t, "sessions", "--home", home, "--json")
	if code != exitOK || strings.TrimSpace(stdout) != "[]" {
		t.Errorf("empty --json: exit %d, %q", code, stdout)
	}
	code, stdout, stderr := cliRun(t, "sessions", "--home", home)
	if code != exitOK || stdout != "" || !strings.Contains(stderr, "no sessions") {
		t.Errorf("empty table: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, _ := cliRun(t, "sessions", "extra"); code != exitUsage {
		t.Errorf("extra argument: exit %d, want %d", code, exitUsage)
	}
	if code, _, stderr := cliRun(t, "sessions", "--jsn"); code != exitUsage || !strings.Contains(stderr, "--json") {
		t.Errorf("misspelt flag: exit %d, stderr %q", code, stderr)
	}
}
