package audit

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

// processSession: exec_command starts a pty process, write_stdin writes a
// hostile string to it, the process exits; a second process is running
// when docket is killed and the session resumed.
func processSession(tb testing.TB) string {
	w := newWriter(tb, "0199a1b2-0000-7000-8000-0000000000cc", events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write"})
	plan := events.SandboxPlan{Mode: "workspace-write", WritableRoots: []string{"/w"}}
	argv := []string{"bash", "-lc", "python3 -i"}
	w.add("", events.UserTurn{TurnID: "turn-1", Text: "go"})
	run := func(id string, st events.ExecStarted, out events.ExecOutcome, cause states.Cause) {
		w.tr(id, states.WantsApproval, states.RunSandboxed, cause, "ok")
		st.CallID, st.Attempt, st.Sandbox = id, 1, plan
		w.durable(id, st)
		out.CallID, out.Attempt = id, 1
		w.add(id, out)
		w.tr(id, states.Sandboxed, states.Finish, states.CauseCompleted, "done")
		w.output(id, true)
	}
	run("c1", events.ExecStarted{Tool: "exec_command", Argv: argv, Cwd: "/w", Process: &events.ProcessCall{ID: 1000, Tty: true, YieldMs: 250, MaxOutputTokens: 100}},
		events.ExecOutcome{Output: ">>> ", Process: &events.ProcessPoll{ID: 1000, Running: true, ChunkID: "aaaaaa"}}, states.CausePolicySkip)
	evil := "print(1)\x1b]0;owned\x07\n"
	run("c2", events.ExecStarted{Tool: "write_stdin", Cwd: "/w", Input: evil, Process: &events.ProcessCall{ID: 1000, Tty: true, YieldMs: 250, MaxOutputTokens: 100, Chars: evil, StartedBy: "c1"}},
		events.ExecOutcome{Output: "1\r\n", ExitCode: 3, Process: &events.ProcessPoll{ID: 1000, ChunkID: "bbbbbb"}}, states.CauseAlreadyApproved)
	run("c3", events.ExecStarted{Tool: "exec_command", Argv: []string{"bash", "-lc", "sleep 1000"}, Cwd: "/w", Process: &events.ProcessCall{ID: 1001, YieldMs: 250, MaxOutputTokens: 100}},
		events.ExecOutcome{Process: &events.ProcessPoll{ID: 1001, Running: true, ChunkID: "cccccc"}}, states.CausePolicySkip)
	w.add("", events.SessionResumed{})
	return w.close()
}

func TestTheAuditTellsEachProcessAsOneStory(t *testing.T) {
	path := processSession(t)
	text := string(streamed(t, path, Options{}, func(b *bytes.Buffer) Sink { return NewTextWriter(b, Options{}) }))
	for _, want := range []string{
		"long-lived processes\n  session 1000: started by call c1 (seq ",
		"under workspace-write, with a pty: bash -lc 'python3 -i'",
		"call c2 (seq ",
		"ended: exited with code 3 (seen by call c2",
		"session 1001: started by call c3",
		"ended: lost: the docket that ran it stopped before the resume at seq ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text audit lacks %q:\n%s", want, text)
		}
	}
	html := string(streamed(t, path, Options{}, func(b *bytes.Buffer) Sink { return NewHTMLWriter(b) }))
	for name, out := range map[string]string{"text": text, "html": html} {
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("the %s audit let a control from the written chars through", name)
		}
	}
	if !strings.Contains(html, "<h2>Long-lived processes</h2>") {
		t.Errorf("the HTML audit has no processes section")
	}
	var rep struct {
		Processes []Process `json:"processes"`
	}
	if err := json.Unmarshal(streamed(t, path, Options{}, func(b *bytes.Buffer) Sink { return NewJSONWriter(b) }), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Processes) != 2 || len(rep.Processes[0].Steps) != 2 || rep.Processes[0].Steps[1].Chars != evilChars() {
		t.Fatalf("JSON processes %+v", rep.Processes)
	}
}

func evilChars() string { return "print(1)\x1b]0;owned\x07\n" }
