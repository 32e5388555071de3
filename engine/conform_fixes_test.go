package engine_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

// TestASessionGrantCountsAtTheRetryStep: once the user has approved a
// command for the session, the same command refused by the sandbox runs
// again without the sandbox without a second question (DESIGN invariant 3:
// a session grant given by the user). Before, the retry asked again, and a
// headless session with no answers left parked.
func TestASessionGrantCountsAtTheRetryStep(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		approval string
		asked    []events.Phase // the one question, for c1
	}{
		// untrusted: c1 is asked first and granted; c2 runs under the grant.
		{"granted at the first question", "untrusted", []events.Phase{events.PhaseInitial}},
		// on-failure: c1 runs sandboxed, is refused, and the retry is granted.
		{"granted at the retry question", "on-failure", []events.Phase{events.PhaseRetry}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := "echo hi >> $OUT/granted.txt"
			f := newFixture(t, setup{approval: tc.approval, mode: "workspace-write",
				answers: []events.ReviewDecision{events.ApprovedForSession},
				script:  shellLine("c1", cmd) + "\n" + shellLine("c2", cmd) + "\n" + done})
			res := f.turn("go")
			if res.Status != events.TurnCompleted {
				t.Fatalf("turn %s (parked %v); c2 path %s", res.Status, res.Parked, f.path("c2"))
			}
			var phases []events.Phase
			for _, a := range f.asked() {
				phases = append(phases, a.Phase)
			}
			if fmt.Sprint(phases) != fmt.Sprint(tc.asked) {
				t.Errorf("asked %v, want %v", phases, tc.asked)
			}
			want := "run_sandboxed:session_grant sandbox_denied:sandbox_denial run_unsandboxed:session_grant finish:completed"
			if tc.approval == "on-failure" {
				want = "run_sandboxed:policy_skip sandbox_denied:sandbox_denial run_unsandboxed:session_grant finish:completed"
			}
			if got := f.path("c2"); got != want {
				t.Errorf("c2 path %q, want %q", got, want)
			}
			data, _ := os.ReadFile(filepath.Join(f.outside, "granted.txt"))
			if string(data) != "hi\nhi\n" {
				t.Errorf("granted.txt = %q: both calls should have written once", data)
			}
		})
	}
}

// TestASessionGrantForAnotherCommandDoesNotCoverTheRetry: the grant is per
// key; a different command refused by the sandbox is still asked about.
func TestASessionGrantForAnotherCommandDoesNotCoverTheRetry(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "on-failure", mode: "workspace-write",
		answers: []events.ReviewDecision{events.ApprovedForSession},
		script:  shellLine("c1", "echo hi >> $OUT/a.txt") + "\n" + shellLine("c2", "echo hi >> $OUT/b.txt") + "\n" + done})
	res := f.turn("go")
	if res.Status != events.TurnParked {
		t.Fatalf("turn %s, want parked on c2's retry question (c2 path %s)", res.Status, f.path("c2"))
	}
	if exists(filepath.Join(f.outside, "b.txt")) {
		t.Error("c2 wrote outside the sandbox without being approved")
	}
}

func patchItem(kind, id, patch string) string {
	switch kind {
	case "function":
		args, _ := json.Marshal(map[string]string{"input": patch})
		return fmt.Sprintf(`{"output":[{"type":"function_call","call_id":%q,"name":"apply_patch","arguments":%s}]}`, id, args)
	case "function-string":
		args, _ := json.Marshal(map[string]string{"input": patch})
		q, _ := json.Marshal(string(args))
		return fmt.Sprintf(`{"output":[{"type":"function_call","call_id":%q,"name":"apply_patch","arguments":%s}]}`, id, q)
	}
	in, _ := json.Marshal(patch)
	return fmt.Sprintf(`{"output":[{"type":"custom_tool_call","call_id":%q,"name":"apply_patch","input":%s}]}`, id, in)
}

func shellArgvLine(id string, argv ...string) string {
	a, _ := json.Marshal(map[string]any{"command": argv})
	return fmt.Sprintf(`{"output":[{"type":"function_call","call_id":%q,"name":"shell","arguments":%s}]}`, id, a)
}

// patchCalls are the ways the model may send one patch that adds name.
func patchCalls(id, name string) map[string]string {
	p := "*** Begin Patch\n*** Add File: " + name + "\n+hi\n*** End Patch\n"
	return map[string]string{
		"custom tool":          patchItem("custom", id, p),
		"function tool":        patchItem("function", id, p),
		"function, string arg": patchItem("function-string", id, p),
		"shell argv":           shellArgvLine(id, "apply_patch", p),
		"shell heredoc":        shellArgvLine(id, "bash", "-lc", "apply_patch <<'EOF'\n"+p+"EOF"),
	}
}

// TestEveryFormOfApplyPatchTakesThePatchPath: the function-call form
// (CLI.md) and apply_patch through the shell (Codex intercepts it) are
// applied as a patch: written by the sandboxed helper, journaled as
// apply_patch with the patch text, and asked about as a patch under
// untrusted. Before, the function form was an invalid call and the shell
// forms ran as a command that does not exist (exit 127).
func TestEveryFormOfApplyPatchTakesThePatchPath(t *testing.T) {
	t.Parallel()
	for name, item := range patchCalls("p1", "added.txt") {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, setup{approval: "untrusted", mode: "workspace-write",
				answers: []events.ReviewDecision{events.Approved},
				script:  item + "\n" + done})
			if res := f.turn("go"); res.Status != events.TurnCompleted {
				t.Fatalf("turn %s", res.Status)
			}
			if data, err := os.ReadFile(filepath.Join(f.ws, "added.txt")); err != nil || string(data) != "hi\n" {
				t.Fatalf("added.txt = %q, %v (path %s, output %q)", data, err, f.path("p1"), outputOf(f, "p1"))
			}
			asked := f.asked()
			if len(asked) != 1 || asked[0].Kind != events.ApprovalPatch || len(asked[0].Paths) != 1 ||
				asked[0].Paths[0] != filepath.Join(f.ws, "added.txt") {
				t.Errorf("asked %+v, want one patch approval for added.txt", asked)
			}
			recs, err := f.j.Call("p1")
			if err != nil {
				t.Fatal(err)
			}
			started := 0
			for _, r := range recs {
				if r.Kind != events.KindExecStarted {
					continue
				}
				b, _ := r.Decode()
				es := b.(*events.ExecStarted)
				started++
				if es.Tool != "apply_patch" || !strings.Contains(es.Input, "*** Add File: added.txt") || !es.Sandbox.Sandboxed() {
					t.Errorf("journaled start %+v, want a sandboxed apply_patch with the patch text", es)
				}
			}
			if started != 1 {
				t.Errorf("%d exec_started records, want 1", started)
			}
			if got := f.path("p1"); got != "ask:untrusted_policy run_sandboxed:user_approved finish:completed" {
				t.Errorf("path %q", got)
			}
		})
	}
}

// TestAShellApplyPatchIsVerifiedWhole: a patch sent through the shell
// whose second operation fails writes nothing, as the apply_patch tool's.
func TestAShellApplyPatchIsVerifiedWhole(t *testing.T) {
	t.Parallel()
	p := "*** Begin Patch\n*** Add File: new.txt\n+x\n*** Update File: missing.txt\n@@\n-a\n+b\n*** End Patch\n"
	f := newFixture(t, setup{approval: "on-request", mode: "workspace-write",
		script: shellArgvLine("p1", "bash", "-lc", "apply_patch <<'EOF'\n"+p+"EOF") + "\n" + done})
	f.turn("go")
	if exists(filepath.Join(f.ws, "new.txt")) {
		t.Fatal("a failing patch wrote part of itself")
	}
	if out := outputOf(f, "p1"); !strings.Contains(out, "missing.txt") || !strings.Contains(out, "not applied") {
		t.Fatalf("model told %q", out)
	}
}

// TestOnlyCodexShapesOfShellApplyPatchAreIntercepted: a script that does
// more than apply a patch runs as the command it is.
func TestOnlyCodexShapesOfShellApplyPatchAreIntercepted(t *testing.T) {
	t.Parallel()
	p := "*** Begin Patch\n*** Add File: new.txt\n+x\n*** End Patch\n"
	f := newFixture(t, setup{approval: "on-request", mode: "workspace-write",
		script: shellArgvLine("p1", "bash", "-lc", "apply_patch <<'EOF'\n"+p+"EOF\necho after") + "\n" + done})
	f.turn("go")
	if exists(filepath.Join(f.ws, "new.txt")) {
		t.Fatal("a script with a trailing command was applied as a patch")
	}
	if out := outputOf(f, "p1"); !strings.Contains(out, "Exit code: 0") || !strings.Contains(out, "after") {
		t.Errorf("want the script run as a command, model told %q", out)
	}
	if st, _ := f.s.CallState("p1"); st != states.Done {
		t.Errorf("call ended in %s", st)
	}
}
