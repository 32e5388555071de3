package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/events"
)

func outputOf(f *fixture, callID string) string {
	for _, it := range f.s.Items() {
		if it.CallID == callID && it.Output != "" {
			return it.Output
		}
	}
	return ""
}

func TestHugeAndNonUTF8OutputReachTheModelShaped(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "on-request", mode: "workspace-write",
		script: shellLine("c1", `head -c 3000000 /dev/zero | tr '\0' 'a'; printf '\xff\xfe tail-marker'`) + "\n" + done})
	f.turn("go")
	out := outputOf(f, "c1")
	if len(out) > 2*engine.DefaultOutputMaxBytes {
		t.Fatalf("model got %d bytes of output", len(out))
	}
	if !strings.Contains(out, "bytes elided") || !strings.Contains(out, "tail-marker") || !strings.Contains(out, "\uFFFD") {
		t.Fatalf("output not shaped (elision, tail, invalid UTF-8 replaced): %q", out[len(out)-200:])
	}
	recs, _ := f.j.Call("c1")
	for _, r := range recs {
		if r.Kind == events.KindExecOutcome {
			b, _ := r.Decode()
			if o := b.(*events.ExecOutcome); !o.Truncated && len(o.Output) > 2<<20 {
				t.Fatalf("journaled %d bytes without marking truncation", len(o.Output))
			}
		}
	}
}

func TestAPatchThatCannotApplyWritesNothingAndSaysWhichHunk(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "on-request", mode: "workspace-write",
		script: `{"output":[{"type":"custom_tool_call","call_id":"p1","name":"apply_patch","input":"*** Begin Patch\n*** Add File: new.txt\n+x\n*** Update File: missing.txt\n@@\n-a\n+b\n*** End Patch\n"}]}` + "\n" + done})
	f.turn("go")
	if exists(filepath.Join(f.ws, "new.txt")) {
		t.Fatal("a failing patch wrote part of itself")
	}
	if out := outputOf(f, "p1"); !strings.Contains(out, "missing.txt") || !strings.Contains(out, "not applied") {
		t.Fatalf("model told %q", out)
	}
	if got := f.path("p1"); got != "run_sandboxed:policy_skip finish:completed" {
		t.Fatalf("path %q", got)
	}
}

func TestCancellingATurnInterruptsItsRunningCall(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "on-request", mode: "workspace-write",
		script: shellLine("c1", "echo started; sleep 30") + "\n" + done})
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once bool
	f.s2(func(n engine.Notice) {
		if n.Type == engine.NoticeCallOutput && !once {
			once = true
			close(started)
		}
	})
	go func() { <-started; cancel() }()
	res, err := f.s.Turn(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != events.TurnAborted {
		t.Fatalf("turn %+v", res)
	}
	if got := f.path("c1"); got != "run_sandboxed:policy_skip interrupt:cancelled" {
		t.Fatalf("path %q", got)
	}
}

func TestAbortInterruptsTheOtherCallsInFlight(t *testing.T) {
	t.Parallel()
	line := `{"output":[` +
		`{"type":"function_call","call_id":"a","name":"shell","arguments":{"command":["bash","-lc","echo a; sleep 30"]}},` +
		`{"type":"function_call","call_id":"b","name":"shell","arguments":{"command":["bash","-lc","echo b > b.txt"]}}]}`
	f := newFixture(t, setup{approval: "untrusted", mode: "workspace-write", answers: []events.ReviewDecision{events.Approved, events.Abort},
		script: line + "\n" + done})
	res := f.turn("go")
	if res.Status != events.TurnAborted {
		t.Fatalf("turn %+v", res)
	}
	if got := f.path("a"); got != "ask:untrusted_policy run_sandboxed:user_approved interrupt:user_abort" {
		t.Fatalf("a: %q", got)
	}
	if got := f.path("b"); got != "ask:untrusted_policy deny:user_abort finish:user_abort" {
		t.Fatalf("b: %q", got)
	}
	if exists(filepath.Join(f.ws, "b.txt")) {
		t.Fatal("the aborted call ran")
	}
}

func TestAnApprovalTimeoutIsNotAUserDenial(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "untrusted", mode: "workspace-write", approver: &enginetest.ScriptedApprover{Answers: []events.ReviewDecision{enginetest.Wait}},
		timeout: 200 * time.Millisecond, script: shellLine("c1", "echo hi > x") + "\n" + done})
	f.turn("go")
	if got := f.path("c1"); got != "ask:untrusted_policy deny:approval_timeout finish:approval_timeout" {
		t.Fatalf("path %q", got)
	}
	recs, _ := f.j.Call("c1")
	for _, r := range recs {
		if r.Kind == events.KindDecision {
			b, _ := r.Decode()
			if d := b.(*events.Decision); d.Decision != events.TimedOut || d.Source != events.SourceTimeout {
				t.Fatalf("decision recorded as %+v", d)
			}
		}
	}
}

func TestAnAmendmentIsSavedAndTakesEffectAtOnce(t *testing.T) {
	t.Parallel()
	call := func(id string) string {
		return `{"output":[{"type":"function_call","call_id":"` + id + `","name":"shell","arguments":{"command":["touch","a.txt"]}}]}`
	}
	f := newFixture(t, setup{approval: "untrusted", mode: "workspace-write", answers: []events.ReviewDecision{events.ApprovedExecpolicyAmendment},
		script: call("c1") + "\n" + call("c2") + "\n" + done})
	f.turn("go")
	if len(f.asked()) != 1 || strings.Join(f.asked()[0].ProposedAmendment, " ") != "touch a.txt" {
		t.Fatalf("asked %+v", f.asked())
	}
	if got := f.path("c1"); got != "ask:untrusted_policy run_sandboxed:user_amendment finish:completed" {
		t.Fatalf("c1: %q", got)
	}
	if got := f.path("c2"); got != "run_unsandboxed:rule_allow finish:completed" {
		t.Fatalf("c2 (after the amendment): %q", got)
	}
	b, err := os.ReadFile(filepath.Join(f.home, "rules", "default.rules"))
	if err != nil || !strings.Contains(string(b), `prefix_rule(pattern=["touch", "a.txt"], decision="allow")`) {
		t.Fatalf("default.rules: %q %v", b, err)
	}
}

func TestAGrantForTheSessionSkipsTheNextPromptForTheSameCommandOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t, setup{approval: "untrusted", mode: "workspace-write", answers: []events.ReviewDecision{events.ApprovedForSession, events.Denied},
		script: shellLine("c1", "echo a >> g.txt") + "\n" + shellLine("c2", "echo a >> g.txt") + "\n" + shellLine("c3", "echo b >> g.txt") + "\n" + done})
	f.turn("go")
	if got := f.path("c2"); got != "run_sandboxed:session_grant finish:completed" {
		t.Fatalf("c2: %q", got)
	}
	if got := f.path("c3"); got != "ask:untrusted_policy deny:user_denied finish:user_denied" {
		t.Fatalf("c3 (another command): %q", got)
	}
}

// fixedRisk rates every denied command, and remembers what it was shown.
type fixedRisk struct{ seen []string }

func (r *fixedRisk) Assess(ctx context.Context, callID string, command []string, cwd, output string) events.RiskAssessment {
	r.seen = append(r.seen, callID+": "+output)
	return events.RiskAssessment{RiskLevel: "medium", Description: "writes outside the workspace"}
}

func TestASandboxDenialIsRiskAssessedAndTheRetryPromptShowsIt(t *testing.T) {
	t.Parallel()
	risk := &fixedRisk{}
	f := newFixture(t, setup{approval: "on-failure", mode: "workspace-write", answers: []events.ReviewDecision{events.Denied}, risk: risk,
		script: shellLine("c1", "echo hi > $OUT/x") + "\n" + done})
	f.turn("go")
	if len(risk.seen) != 1 || !strings.Contains(risk.seen[0], "Read-only file system") {
		t.Fatalf("assessor saw %q", risk.seen)
	}
	if len(f.asked()) != 1 || f.asked()[0].Risk == nil || f.asked()[0].Risk.RiskLevel != "medium" {
		t.Fatalf("retry prompt: %+v", f.asked())
	}
	recs, _ := f.j.Call("c1")
	var journaled bool
	for _, r := range recs {
		if r.Kind == events.KindRiskAssessment {
			b, _ := r.Decode()
			journaled = b.(*events.RiskAssessment).CallID == "c1"
		}
	}
	if !journaled {
		t.Fatal("the assessment is not in the journal")
	}
}

func TestOnlyTheUsersOwnAllowRulesLiftTheSandbox(t *testing.T) {
	t.Parallel()
	rule := `prefix_rule(pattern=["touch"], decision="allow")` + "\n"
	call := `{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["touch","a.txt"]}}]}`
	for _, tc := range []struct {
		name    string
		project bool
		want    string
	}{
		{"user rule", false, "run_unsandboxed:rule_allow finish:completed"},
		{"project rule", true, "run_sandboxed:rule_allow finish:completed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, setup{approval: "untrusted", mode: "workspace-write", script: call + "\n" + done,
				rules: []events.RuleSource{{Path: "/x/default.rules", Text: rule, Project: tc.project}}})
			f.turn("go")
			if got := f.path("c1"); got != tc.want {
				t.Fatalf("path %q, want %q", got, tc.want)
			}
			if len(f.asked()) != 0 {
				t.Fatalf("an allow rule still asked: %+v", f.asked())
			}
		})
	}
}
