package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal/journaltest"
	"github.com/docket-engine/docket/states"
)

func shellLine(id, cmd string) string {
	return fmt.Sprintf(`{"output":[{"type":"function_call","call_id":%q,"name":"shell","arguments":{"command":["bash","-lc",%q]}}]}`, id, cmd)
}

const done = `{"output":[{"type":"message","content":"done"}]}`

func TestKnownSafeCommandRunsSandboxedWithoutAPrompt(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "untrusted", mode: "workspace-write",
		script: `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["ls"]}}]}` + "\n" + done})
	res := f.turn("list")
	if res.Status != events.TurnCompleted || res.Message != "done" {
		t.Fatalf("turn: %+v", res)
	}
	if len(f.asked()) != 0 {
		t.Fatalf("asked %d times for a known-safe command", len(f.asked()))
	}
	if got, want := f.path("c1"), "run_sandboxed:known_safe finish:completed"; got != want {
		t.Fatalf("path %q, want %q", got, want)
	}
}

func TestSandboxDenialIsRetriedUnsandboxedOnlyAfterTheUserApproves(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "on-failure", mode: "workspace-write", answers: []events.ReviewDecision{events.Approved},
		script: shellLine("c1", "echo hi > $OUT/x") + "\n" + done})
	f.turn("write outside")
	want := "run_sandboxed:policy_skip sandbox_denied:sandbox_denial ask:sandbox_denial run_unsandboxed:user_approved finish:completed"
	if got := f.path("c1"); got != want {
		t.Fatalf("path %q, want %q", got, want)
	}
	if len(f.asked()) != 1 || f.asked()[0].Phase != events.PhaseRetry || f.asked()[0].Reason != "command failed; retry without sandbox?" {
		t.Fatalf("asked %+v", f.asked())
	}
	if b, err := os.ReadFile(filepath.Join(f.outside, "x")); err != nil || string(b) != "hi\n" {
		t.Fatalf("retry did not write the file: %q %v", b, err)
	}
}

func TestSandboxDenialUnderOnRequestGoesBackToTheModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "on-request", mode: "workspace-write",
		script: shellLine("c1", "echo hi > $OUT/x") + "\n" + done})
	f.turn("write outside")
	if got, want := f.path("c1"), "run_sandboxed:policy_skip sandbox_denied:sandbox_denial finish:retry_not_allowed"; got != want {
		t.Fatalf("path %q, want %q", got, want)
	}
	if len(f.asked()) != 0 || exists(filepath.Join(f.outside, "x")) {
		t.Fatalf("asked %d, file written %v", len(f.asked()), exists(filepath.Join(f.outside, "x")))
	}
	out := f.s.Items()
	var toolOut string
	for _, it := range out {
		if it.Type == events.ItemFunctionCallOutput {
			toolOut = it.Output
		}
	}
	if !strings.Contains(toolOut, "sandbox denied") {
		t.Fatalf("model was not told of the denial: %q", toolOut)
	}
}

func TestUserDenialTellsTheModelAndTheTurnGoesOn(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "untrusted", mode: "workspace-write", answers: []events.ReviewDecision{events.Denied},
		script: shellLine("c1", "echo hi > x") + "\n" + done})
	res := f.turn("write")
	if res.Status != events.TurnCompleted {
		t.Fatalf("turn %+v", res)
	}
	if got, want := f.path("c1"), "ask:untrusted_policy deny:user_denied finish:user_denied"; got != want {
		t.Fatalf("path %q, want %q", got, want)
	}
	if exists(filepath.Join(f.ws, "x")) {
		t.Fatal("denied command ran")
	}
}

func TestNoDecisionParksTheCallInAwaitingDecision(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "untrusted", mode: "workspace-write",
		script: shellLine("c1", "echo hi > x") + "\n" + done})
	res := f.turn("write")
	if res.Status != events.TurnParked || len(res.Parked) != 1 || res.Parked[0] != "c1" {
		t.Fatalf("turn %+v", res)
	}
	if st, _ := f.s.CallState("c1"); st != states.AwaitingDecision {
		t.Fatalf("state %s", st)
	}
}

func TestApplyPatchInsideTheWorkspaceWritesUnderTheSandbox(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "on-request", mode: "workspace-write",
		script: `{"output":[{"type":"custom_tool_call","call_id":"p1","name":"apply_patch","input":"*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n"}]}` + "\n" + done})
	f.turn("patch")
	if got, want := f.path("p1"), "run_sandboxed:policy_skip finish:completed"; got != want {
		t.Fatalf("path %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, "hello.txt")); string(b) != "hi\n" {
		t.Fatalf("hello.txt = %q", b)
	}
}

func TestInvalidCallsFailWithAResultForTheModel(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, item, want string }{
		{"unknown tool", `{"type":"function_call","call_id":"c1","name":"nope","arguments":{}}`, "unknown tool"},
		{"arguments not JSON", `{"type":"function_call","call_id":"c1","name":"shell","arguments":"{not json"}`, "not valid shell arguments"},
		{"empty argv", `{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":[]}}`, "command is empty"},
		{"workdir outside", `{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["ls"],"workdir":"../.."}}`, "outside the workspace"},
		{"custom call to a function tool", `{"type":"custom_tool_call","call_id":"c1","name":"shell","input":"ls"}`, "called as a custom tool"},
		{"patch with no hunks", `{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch\n*** End Patch\n"}`, "invalid patch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, setup{approval: "on-request", mode: "workspace-write",
				script: `{"output":[` + tc.item + `]}` + "\n" + done})
			if res := f.turn("go"); res.Status != events.TurnCompleted {
				t.Fatalf("turn %+v", res)
			}
			if got := f.path("c1"); got != "fail:invalid_call" {
				t.Fatalf("path %q", got)
			}
			var out string
			for _, it := range f.s.Items() {
				if it.CallID == "c1" && it.Output != "" {
					out = it.Output
				}
			}
			if !strings.Contains(out, tc.want) {
				t.Fatalf("model told %q, want it to mention %q", out, tc.want)
			}
		})
	}
}

// writeAheadRunner checks, at spawn time, that the journal file already
// holds the transition into the running state and the exec_started record.
type writeAheadRunner struct {
	engine.Runner
	path   string
	t      *testing.T
	checks int
}

func (w *writeAheadRunner) Run(ctx context.Context, req engine.RunRequest) (events.ExecOutcome, error) {
	recs, err := journaltest.OnDisk(w.path)
	if err != nil {
		w.t.Errorf("read journal at spawn: %v", err)
	}
	var sawTransition, sawStart bool
	for _, r := range recs {
		b, _ := r.Decode()
		switch v := b.(type) {
		case *events.Transition:
			if v.CallID == req.CallID && (v.To == string(states.Sandboxed) || v.To == string(states.Unsandboxed)) {
				sawTransition = true
			}
		case *events.ExecStarted:
			if v.CallID == req.CallID && v.Attempt == req.Attempt {
				sawStart = true
			}
		}
	}
	if !sawTransition || !sawStart {
		w.t.Errorf("call %s attempt %d spawned before its write-ahead records were on disk (transition %v, exec_started %v)",
			req.CallID, req.Attempt, sawTransition, sawStart)
	}
	w.checks++
	return w.Runner.Run(ctx, req)
}

func TestEveryRunIsDurablyJournaledBeforeItStarts(t *testing.T) {
	t.Parallel()
	exe, _ := os.Executable()
	war := &writeAheadRunner{Runner: &engine.ProcessRunner{HelperPath: exe}, t: t}
	f := newFixture(t, setup{approval: "on-failure", mode: "workspace-write", answers: []events.ReviewDecision{events.Approved}, runner: war,
		script: shellLine("c1", "echo hi > $OUT/x") + "\n" + shellLine("c2", "true") + "\n" + done})
	war.path = f.j.Path()
	f.turn("go")
	if war.checks != 3 { // c1 sandboxed, c1 retry, c2
		t.Fatalf("runner saw %d runs, want 3", war.checks)
	}
}

func TestParallelCallsReturnInCallOrder(t *testing.T) {
	t.Parallel()
	line := `{"output":[` +
		`{"type":"function_call","call_id":"a","name":"shell","arguments":{"command":["bash","-lc","sleep 0.3; echo A"]}},` +
		`{"type":"function_call","call_id":"b","name":"shell","arguments":{"command":["bash","-lc","echo B"]}}]}`
	f := newFixture(t, setup{approval: "on-request", mode: "workspace-write", script: line + "\n" + done})
	f.turn("go")
	var order []string
	for _, it := range f.s.Items() {
		if it.Type == events.ItemFunctionCallOutput {
			order = append(order, it.CallID)
		}
	}
	if strings.Join(order, ",") != "a,b" {
		t.Fatalf("outputs in order %v, want a,b", order)
	}
}

func TestADeclinedRetryStillShowsTheModelTheSandboxedRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "on-failure", mode: "workspace-write", answers: []events.ReviewDecision{events.Denied},
		script: shellLine("c1", "echo partial; echo hi > $OUT/x") + "\n" + done})
	f.turn("go")
	out := outputOf(f, "c1")
	if !strings.Contains(out, "partial") || !strings.Contains(out, "Read-only file system") || !strings.Contains(out, "not run again without the sandbox") {
		t.Fatalf("model told %q", out)
	}
	if got := f.path("c1"); got != "run_sandboxed:policy_skip sandbox_denied:sandbox_denial ask:sandbox_denial deny:user_denied finish:user_denied" {
		t.Fatalf("path %q", got)
	}
}
