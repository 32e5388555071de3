package engine_test

import (
	"os"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/uexec"
	"github.com/docket-engine/docket/events"
)

// uexecFixture is a session offering exec_command and write_stdin, with
// the real runner and a process table closed at the test's end.
func uexecFixture(t *testing.T, mode, script string) (*fixture, *uexec.Table) {
	t.Helper()
	exe, _ := os.Executable()
	procs := &uexec.Table{}
	t.Cleanup(func() { procs.Close() })
	f := newFixture(t, setup{approval: "never", mode: mode, script: script,
		runner: &engine.ProcessRunner{HelperPath: exe, Processes: procs},
		tools:  []engine.Tool{engine.ShellTool{}, engine.ExecCommandTool{}, engine.WriteStdinTool{}}})
	return f, procs
}

func execLine(id, args string) string {
	return `{"output":[{"type":"function_call","call_id":"` + id + `","name":"exec_command","arguments":` + args + `}]}`
}

func writeLine(id, args string) string {
	return `{"output":[{"type":"function_call","call_id":"` + id + `","name":"write_stdin","arguments":` + args + `}]}`
}

// outputs returns each call's tool_output text.
func (f *fixture) outputs() map[string]string {
	f.t.Helper()
	recs, err := f.j.All()
	if err != nil {
		f.t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range recs {
		if r.Kind == events.KindToolOutput {
			b, _ := r.Decode()
			o := b.(*events.ToolOutput)
			out[o.CallID] = o.Output
		}
	}
	return out
}

func TestExecCommandKeepsATtyProcessThatWriteStdinTalksTo(t *testing.T) {
	f, procs := uexecFixture(t, "read-only", strings.Join([]string{
		execLine("c1", `{"cmd":"cat","tty":true,"yield_time_ms":300}`),
		writeLine("c2", `{"session_id":1000,"chars":"hello\n","yield_time_ms":1000}`),
		writeLine("c3", `{"session_id":1000,"chars":"\u0004","yield_time_ms":5000}`),
		writeLine("c4", `{"session_id":1000,"chars":""}`),
		done}, "\n"))
	res := f.turn("talk to cat")
	if res.Status != events.TurnCompleted {
		t.Fatalf("turn %+v", res)
	}
	out := f.outputs()
	if !strings.Contains(out["c1"], "Process running with session ID 1000\n") || !strings.HasPrefix(out["c1"], "Chunk ID: ") {
		t.Errorf("c1: %q", out["c1"])
	}
	if !strings.Contains(out["c2"], "hello\r\nhello\r\n") {
		t.Errorf("c2 should hold the pty's echo and cat's answer: %q", out["c2"])
	}
	if !strings.Contains(out["c3"], "Process exited with code 0\n") {
		t.Errorf("c3 should see cat end at ^D: %q", out["c3"])
	}
	if out["c4"] != "Invalid call: write_stdin failed: Unknown process id 1000" {
		t.Errorf("c4 wrote to a finished process: %q", out["c4"])
	}
	if got, want := f.path("c2"), "run_sandboxed:already_approved finish:completed"; got != want {
		t.Errorf("write_stdin path %q, want %q", got, want)
	}
	if tr := f.transitions("c1"); len(tr) == 0 || tr[len(tr)-1].To != "done" || tr[len(tr)-1].Reason != "running, session 1000" {
		t.Errorf("exec_command's done should say its process runs on: %+v", tr)
	}
	if live := procs.Live(); len(live) != 0 {
		t.Errorf("processes still live: %v", live)
	}
}

// exec_command's escalation request is judged as shell's: asked under
// on-request (and run unsandboxed only once the user approved), refused
// under never.
func TestExecCommandEscalationIsAskedAndNeverGranted(t *testing.T) {
	for _, tc := range []struct {
		approval, want string
		answers        []events.ReviewDecision
		written        bool
	}{
		{"on-request", "ask:escalation_requested run_unsandboxed:user_approved finish:completed", []events.ReviewDecision{events.Approved}, true},
		{"never", "deny:escalation_requested finish:escalation_requested", nil, false},
	} {
		t.Run(tc.approval, func(t *testing.T) {
			exe, _ := os.Executable()
			procs := &uexec.Table{}
			t.Cleanup(func() { procs.Close() })
			f := newFixture(t, setup{approval: tc.approval, mode: "workspace-write", answers: tc.answers,
				runner: &engine.ProcessRunner{HelperPath: exe, Processes: procs},
				tools:  []engine.Tool{engine.ExecCommandTool{}, engine.WriteStdinTool{}},
				script: execLine("c1", `{"cmd":"touch $OUT/esc","sandbox_permissions":"require_escalated","justification":"needs to write outside","prefix_rule":["touch"],"yield_time_ms":5000}`) + "\n" + done})
			f.turn("escalate")
			if got := f.path("c1"); got != tc.want {
				t.Fatalf("path %q, want %q", got, tc.want)
			}
			if written := exists(f.outside + "/esc"); written != tc.written {
				t.Fatalf("written %v, want %v", written, tc.written)
			}
			if asked := f.asked(); len(tc.answers) > 0 && (len(asked) != 1 || strings.Join(asked[0].ProposedAmendment, " ") != "touch") {
				t.Fatalf("the request should offer the model's prefix_rule as the rule to save: %+v", asked)
			}
		})
	}
}
