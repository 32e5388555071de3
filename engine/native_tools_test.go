package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

func nativeFixture(t *testing.T, approval, mode, script string) *fixture {
	t.Helper()
	exe, _ := os.Executable()
	return newFixture(t, setup{approval: approval, mode: mode, script: script,
		runner: &engine.ProcessRunner{HelperPath: exe},
		tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}, engine.ShellCommandTool{},
			engine.NativeShellTool{}, engine.NativeApplyPatchTool{}}})
}

// items returns the conversation's output items of one type, as the next
// request would send them.
func (f *fixture) convItems(typ string) []events.Item {
	f.t.Helper()
	recs, err := f.j.All()
	if err != nil {
		f.t.Fatal(err)
	}
	var out []events.Item
	for _, r := range recs {
		if r.Kind == events.KindToolOutput {
			b, _ := r.Decode()
			if o := b.(*events.ToolOutput); o.Type == typ {
				out = append(out, events.Item{Type: o.Type, CallID: o.CallID, Output: o.Output})
			}
		}
	}
	return out
}

func TestNativeShellCallRunsItsCommandsInTheSandbox(t *testing.T) {
	f := nativeFixture(t, "never", "workspace-write", strings.Join([]string{
		`{"output":[{"type":"shell_call","call_id":"s1","status":"completed","action":{"commands":["echo one > a.txt","cat a.txt"],"timeout_ms":5000,"max_output_length":100}}]}`,
		`{"output":[{"type":"shell_call","call_id":"s2","action":{"commands":["echo x > $OUT/x"]}}]}`,
		done}, "\n"))
	f.turn("native shell")
	outs := f.convItems(events.ItemShellCallOutput)
	if len(outs) != 2 {
		t.Fatalf("%d shell_call_output records", len(outs))
	}
	if !strings.Contains(outs[0].Output, `"stdout":"one\n"`) || !strings.Contains(outs[0].Output, `"exit_code":0`) {
		t.Errorf("s1: %s", outs[0].Output)
	}
	if got, want := f.path("s2"), "run_sandboxed:policy_skip sandbox_denied:sandbox_denial finish:retry_not_allowed"; got != want {
		t.Errorf("s2 path %q, want %q (the sandbox holds for the native form too)", got, want)
	}
	if exists(filepath.Join(f.outside, "x")) {
		t.Error("s2 wrote outside the workspace")
	}
}

func TestNativeShellCallIsJudgedAsShellIs(t *testing.T) {
	f := nativeFixture(t, "never", "workspace-write",
		`{"output":[{"type":"shell_call","call_id":"s1","action":{"commands":["ls","rm -rf /tmp/nothing-here"]}}]}`+"\n"+done)
	f.turn("dangerous")
	if got, want := f.path("s1"), "deny:dangerous_command finish:dangerous_command"; got != want {
		t.Errorf("path %q, want %q", got, want)
	}
	if outs := f.convItems(events.ItemShellCallOutput); len(outs) != 1 || !strings.Contains(outs[0].Output, "Not run: forbidden") {
		t.Errorf("outputs %+v", outs)
	}
}

func TestNativeApplyPatchCallAppliesEachOperation(t *testing.T) {
	f := nativeFixture(t, "never", "workspace-write", strings.Join([]string{
		`{"output":[{"type":"apply_patch_call","call_id":"p1","status":"completed","operation":{"type":"create_file","path":"hello.txt","diff":"+hello\n+world\n"}}]}`,
		`{"output":[{"type":"apply_patch_call","call_id":"p2","operation":{"type":"update_file","path":"hello.txt","diff":"@@\n hello\n-world\n+there\n"}}]}`,
		`{"output":[{"type":"apply_patch_call","call_id":"p3","operation":{"type":"update_file","path":"hello.txt","diff":"@@\n-nothing like this\n+x\n"}}]}`,
		`{"output":[{"type":"apply_patch_call","call_id":"p4","operation":{"type":"create_file","path":"$OUT/escape.txt","diff":"+x\n"}}]}`,
		`{"output":[{"type":"apply_patch_call","call_id":"p5","operation":{"type":"delete_file","path":"hello.txt"}}]}`,
		done}, "\n"))
	f.turn("patches")
	recs, _ := f.j.All()
	status := map[string]bool{}
	for _, r := range recs {
		if r.Kind == events.KindToolOutput {
			b, _ := r.Decode()
			o := b.(*events.ToolOutput)
			if o.Type != events.ItemApplyPatchCallOutput {
				t.Errorf("%s went back as %s", o.CallID, o.Type)
			}
			status[o.CallID] = o.Success
		}
	}
	if !status["p1"] || !status["p2"] || status["p3"] || status["p4"] || !status["p5"] {
		t.Fatalf("successes %v, want p1 p2 p5 only", status)
	}
	if exists(filepath.Join(f.ws, "hello.txt")) || exists(filepath.Join(f.outside, "escape.txt")) {
		t.Fatal("the files are not as the operations left them")
	}
}

func TestShellCommandRunsAStringThroughShellsDecisions(t *testing.T) {
	f := nativeFixture(t, "untrusted", "workspace-write", strings.Join([]string{
		`{"output":[{"type":"function_call","call_id":"c1","name":"shell_command","arguments":{"command":"echo hi && pwd"}}]}`,
		`{"output":[{"type":"function_call","call_id":"c2","name":"shell_command","arguments":{"command":"touch made"}}]}`,
		done}, "\n"))
	f.appr.Answers = []events.ReviewDecision{events.Approved}
	f.turn("shell_command")
	if got, want := f.path("c1"), "run_sandboxed:known_safe finish:completed"; got != want {
		t.Errorf("c1 path %q, want %q", got, want)
	}
	if got, want := f.path("c2"), "ask:untrusted_policy run_sandboxed:user_approved finish:completed"; got != want {
		t.Errorf("c2 path %q, want %q", got, want)
	}
	if !exists(filepath.Join(f.ws, "made")) {
		t.Error("c2 did not run")
	}
}
