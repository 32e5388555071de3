package policy

import (
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/rules"
)

func benchRules(b *testing.B) *rules.Set {
	b.Helper()
	s, err := rules.LoadSources([]events.RuleSource{{Path: "/h/rules/default.rules", Text: matrixRules}}, rules.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// The replay benchmark's shape: a dynamic script (a redirection) under
// on-request, which reaches the last step of ExecRequirement.
func BenchmarkExecRequirementDynamicScript(b *testing.B) {
	in := ExecInput{Argv: []string{"bash", "-lc", "echo 42 > f42"}, Approval: OnRequest,
		Sandbox: SandboxPolicy{Mode: WorkspaceWrite}, Rules: benchRules(b)}
	b.ReportAllocs()
	for b.Loop() {
		if r := ExecRequirement(in); r.Kind != Skip || r.Cause != CausePolicySkip {
			b.Fatalf("got %s/%s; want skip by policy", r.Kind, r.Cause)
		}
	}
}

// A plain script with an unknown command: every step runs and an amendment
// is proposed.
func BenchmarkExecRequirementPlainScript(b *testing.B) {
	in := ExecInput{Argv: []string{"bash", "-lc", "git status && cargo build --release | tail -5"},
		Approval: Untrusted, Sandbox: SandboxPolicy{Mode: WorkspaceWrite}, Rules: benchRules(b)}
	b.ReportAllocs()
	for b.Loop() {
		if r := ExecRequirement(in); r.Kind != NeedsApproval || len(r.ProposedAmendment) != 3 {
			b.Fatalf("got %s %q; want needs_approval proposing cargo build --release", r.Kind, r.ProposedAmendment)
		}
	}
}

// The engine decides each call on a goroutine of its own, whose stack starts
// small: the first parse pays for growing it.
func BenchmarkExecRequirementDynamicScriptNewGoroutine(b *testing.B) {
	in := ExecInput{Argv: []string{"bash", "-lc", "echo 42 > f42"}, Approval: OnRequest,
		Sandbox: SandboxPolicy{Mode: WorkspaceWrite}, Rules: benchRules(b)}
	b.ReportAllocs()
	done := make(chan Requirement)
	for b.Loop() {
		go func() { done <- ExecRequirement(in) }()
		if r := <-done; r.Kind != Skip || r.Cause != CausePolicySkip {
			b.Fatalf("got %s/%s; want skip by policy", r.Kind, r.Cause)
		}
	}
}

func BenchmarkClassify(b *testing.B) {
	out := events.ExecOutcome{ExitCode: 1, Stderr: "touch: cannot touch '/etc/x': Permission denied\n"}
	plan := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, WritableRoots: []string{"/w"}}
	for b.Loop() {
		ClassifyDenial(out, plan, "")
	}
}
