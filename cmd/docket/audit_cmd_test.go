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
	"github.com/docket-engine/docket/states"
)

const auditSessionID = "0199b0c0-0000-7000-8000-0000000000a1"

// auditJournal writes a session under home with two calls: c1 runs in the
// sandbox; c2 is denied by the sandbox and the user approves the retry.
func auditJournal(t *testing.T, home string) string {
	t.Helper()
	b := newJournalBuilder(t, home, auditSessionID)
	add, tr := b.add, b.tr
	plan := events.SandboxPlan{Mode: "workspace-write", WritableRoots: []string{"/w"}}
	add("", events.SessionStarted{Version: events.FormatVersion, SessionID: auditSessionID, Cwd: "/w",
		Config: events.SessionConfig{ApprovalPolicy: "on-failure", SandboxMode: "workspace-write"}, Plan: plan})
	add("", events.ModelResponse{TurnID: "turn-1", Request: 1, Items: []events.Item{
		{Type: events.ItemFunctionCall, CallID: "c1", Name: "shell", Arguments: `{"command":["ls"]}`},
		{Type: events.ItemFunctionCall, CallID: "c2", Name: "shell", Arguments: `{"command":["touch","/etc/x"]}`},
	}})
	tr("c1", states.WantsApproval, states.RunSandboxed, states.CauseKnownSafe)
	add("c1", events.ExecStarted{CallID: "c1", Attempt: 1, Tool: "shell", Argv: []string{"ls"}, Cwd: "/w", Sandbox: plan})
	add("c1", events.ExecOutcome{CallID: "c1", Attempt: 1, Layers: []string{"landlock:v7", "seccomp"}})
	tr("c1", states.Sandboxed, states.Finish, states.CauseCompleted)
	add("c1", events.ToolOutput{CallID: "c1", Success: true})
	tr("c2", states.WantsApproval, states.RunSandboxed, states.CausePolicySkip)
	add("c2", events.ExecStarted{CallID: "c2", Attempt: 1, Tool: "shell", Argv: []string{"touch", "/etc/x"}, Cwd: "/w", Sandbox: plan})
	add("c2", events.ExecOutcome{CallID: "c2", Attempt: 1, ExitCode: 1, Layers: []string{"landlock:v7", "seccomp"},
		Denial: &events.DenialEvidence{Reason: "read-only file system", Errno: "EROFS", Path: "/etc/x"}})
	tr("c2", states.Sandboxed, states.SandboxDenied, states.CauseSandboxDenial)
	tr("c2", states.RetryPrompt, states.Ask, states.CauseSandboxDenial)
	add("c2", events.ApprovalRequested{CallID: "c2", Phase: events.PhaseRetry, Kind: events.ApprovalExec, Command: []string{"touch", "/etc/x"}, Cwd: "/w"})
	add("c2", events.Decision{CallID: "c2", Phase: events.PhaseRetry, Decision: "approved", Source: events.SourceUser, At: b.now.Add(time.Second).UnixNano()})
	tr("c2", states.AwaitingDecision, states.RunUnsandboxed, states.CauseUserApproved)
	add("c2", events.ExecStarted{CallID: "c2", Attempt: 2, Tool: "shell", Argv: []string{"touch", "/etc/x"}, Cwd: "/w", Sandbox: events.SandboxPlan{Mode: "none"}})
	add("c2", events.ExecOutcome{CallID: "c2", Attempt: 2})
	tr("c2", states.Unsandboxed, states.Finish, states.CauseCompleted)
	add("c2", events.ToolOutput{CallID: "c2", Success: true})
	add("", events.TurnEnded{TurnID: "turn-1", Status: events.TurnCompleted, Message: "end-of-turn marker"})
	return b.close()
}

// journalBuilder writes a session's journal record by record, each a
// second after the last, for the audit tests.
type journalBuilder struct {
	t   *testing.T
	j   *journal.Journal
	now time.Time // the time of the last record appended
}

func newJournalBuilder(t *testing.T, home, sessionID string) *journalBuilder {
	t.Helper()
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	j, err := journal.Create(home, sessionID, start)
	if err != nil {
		t.Fatal(err)
	}
	return &journalBuilder{t: t, j: j, now: start}
}

// add appends body under call id (none: the session's).
func (b *journalBuilder) add(id string, body any) {
	b.t.Helper()
	b.now = b.now.Add(time.Second)
	if _, err := b.j.Append(b.now, id, body); err != nil {
		b.t.Fatal(err)
	}
}

// durable appends body and commits, as the engine does for a record that
// must survive a crash before it acts.
func (b *journalBuilder) durable(id string, body any) {
	b.t.Helper()
	b.add(id, body)
	if err := b.j.Commit(); err != nil {
		b.t.Fatal(err)
	}
}

// tr appends call id's transition from by ev, to where the table leads.
func (b *journalBuilder) tr(id string, from states.State, ev states.Event, cause states.Cause) {
	b.t.Helper()
	to, _ := states.Next(from, ev)
	b.add(id, events.Transition{CallID: id, From: string(from), Event: string(ev), To: string(to), Cause: string(cause), Reason: "r"})
}

// close closes the journal and returns its path.
func (b *journalBuilder) close() string {
	b.t.Helper()
	if err := b.j.Close(); err != nil {
		b.t.Fatal(err)
	}
	return b.j.Path()
}

func runAuditCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestAuditJSONHasTheShapeOfCLIMD(t *testing.T) {
	t.Parallel()
	path := auditJournal(t, t.TempDir())
	code, out, errs := runAuditCLI(t, "audit", path, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		SessionID string `json:"session_id"`
		Journal   string `json:"journal"`
		Calls     []struct {
			CallID         string   `json:"call_id"`
			Tool           string   `json:"tool"`
			Command        []string `json:"command"`
			Cwd            string   `json:"cwd"`
			FinalState     string   `json:"final_state"`
			Outcome        string   `json:"outcome"`
			ExitCode       *int     `json:"exit_code"`
			RanUnsandboxed bool     `json:"ran_unsandboxed"`
			WhyUnsandboxed string   `json:"why_unsandboxed"`
			Transitions    []struct {
				Seq                                uint64
				From, Event, To, Cause, Reason, At string
			} `json:"transitions"`
			Decisions []struct{ Phase, Decision, Source, At string } `json:"decisions"`
			Sandbox   struct {
				Mode    string   `json:"mode"`
				Layers  []string `json:"layers"`
				Network bool     `json:"network"`
			} `json:"sandbox"`
		} `json:"calls"`
	}
	var loose map[string]any
	if err := json.Unmarshal([]byte(out), &loose); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.SessionID != auditSessionID || r.Journal != path || len(r.Calls) != 2 {
		t.Fatalf("session %q journal %q calls %d", r.SessionID, r.Journal, len(r.Calls))
	}
	c2 := r.Calls[1]
	if c2.CallID != "c2" || c2.Tool != "shell" || c2.Cwd != "/w" || c2.FinalState != "done" || c2.Outcome != "completed" ||
		c2.ExitCode == nil || *c2.ExitCode != 0 || !c2.RanUnsandboxed {
		t.Errorf("c2 = %+v", c2)
	}
	if want := "sandbox denied it (EROFS writing /etc/x); user approved the retry at 2026-11-22T10:00:14Z"; c2.WhyUnsandboxed != want {
		t.Errorf("why %q, want %q", c2.WhyUnsandboxed, want)
	}
	if len(c2.Transitions) != 5 || c2.Transitions[3].To != "unsandboxed" || c2.Transitions[3].Cause != "user_approved" || c2.Transitions[3].At == "" {
		t.Errorf("transitions %+v", c2.Transitions)
	}
	if len(c2.Decisions) != 1 || c2.Decisions[0].Phase != "retry" || c2.Decisions[0].Source != "user" {
		t.Errorf("decisions %+v", c2.Decisions)
	}
	if c2.Sandbox.Mode != "workspace-write" || strings.Join(c2.Sandbox.Layers, ",") != "landlock:v7,seccomp" || c2.Sandbox.Network {
		t.Errorf("sandbox %+v", c2.Sandbox)
	}
	if r.Calls[0].RanUnsandboxed || r.Calls[0].Outcome != "completed" {
		t.Errorf("c1 = %+v", r.Calls[0])
	}
}

func TestAuditFindsSessionsByIDUnderHome(t *testing.T) {
	home := t.TempDir()
	auditJournal(t, home)
	code, out, errs := runAuditCLI(t, "audit", auditSessionID[:12], "--home", home, "--unsandboxed")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "call c1") || !strings.Contains(out, "call c2") || !strings.Contains(out, "why: sandbox denied it (EROFS writing /etc/x)") {
		t.Errorf("--unsandboxed output:\n%s", out)
	}
	t.Setenv("DOCKET_HOME", home)
	code, out, errs = runAuditCLI(t, "audit", "last", "--call", "c2")
	if code != 0 || !strings.Contains(out, "UNSANDBOXED because sandbox denied it") || strings.Contains(out, "call c1") {
		t.Errorf("audit last --call c2: exit %d\n%s%s", code, out, errs)
	}
}

func TestAuditWritesASelfContainedHTMLPage(t *testing.T) {
	t.Parallel()
	path := auditJournal(t, t.TempDir())
	page := filepath.Join(t.TempDir(), "audit.html")
	code, out, errs := runAuditCLI(t, "audit", path, "--html", page)
	if code != 0 || out != "" || !strings.Contains(errs, page) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.HasPrefix(s, "<!DOCTYPE html>") || !strings.Contains(s, "<svg") || strings.Contains(s, "<script") ||
		!strings.Contains(s, `class="edge hl" data-edge="retryPrompt|ask"`) {
		t.Errorf("page lacks the diagram or the highlighted retry path")
	}
}

func TestAuditRejectsWhatItCannotFind(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := auditJournal(t, home)
	tests := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"unknown call", []string{"audit", path, "--call", "c9"}, exitUsage, `"c9"`},
		{"unknown session", []string{"audit", "ffff", "--home", home}, exitUsage, "ffff"},
		{"missing file", []string{"audit", filepath.Join(home, "nope.docket")}, exitFailed, "nope.docket"},
		{"no argument", []string{"audit"}, exitUsage, "arg"},
		{"not a journal", []string{"audit", filepath.Join(home, "sessions") + "/"}, exitFailed, "not a docket journal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runAuditCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.says) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", code, errs, tc.code, tc.says)
			}
		})
	}
}

func TestAuditOfADamagedJournalSaysWhereItStopped(t *testing.T) {
	t.Parallel()
	path := auditJournal(t, t.TempDir())
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("end-of-turn marker")) // only in the last record
	if i < 0 {
		t.Fatal("marker not found")
	}
	b[i] ^= 0x01
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runAuditCLI(t, "audit", path, "--json")
	if code != 1 || !strings.Contains(errs, "damaged after seq 19") || !strings.Contains(errs, path) || !strings.Contains(errs, "incomplete") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var r struct {
		Calls   []json.RawMessage
		Damaged struct {
			LastGoodSeq uint64 `json:"last_good_seq"`
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Calls) != 2 || r.Damaged.LastGoodSeq != 19 {
		t.Errorf("report %+v, %v", r, err)
	}
}
