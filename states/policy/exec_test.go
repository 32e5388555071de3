package policy

import (
	"reflect"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/rules"
)

const matrixRules = `
prefix_rule(pattern=["make", "test"], decision="allow")
prefix_rule(pattern=["git", "push"], decision="prompt", justification="pushes are reviewed")
prefix_rule(pattern=["curl"], decision="forbidden", justification="use the fetch tool")
`

func loadRules(t *testing.T, text string) *rules.Set {
	t.Helper()
	s, err := rules.LoadSources([]events.RuleSource{{Path: "/h/rules/default.rules", Text: text}}, rules.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	policiesInOrder = []ApprovalPolicy{Untrusted, OnFailure, OnRequest, Never}
	modesInOrder    = []SandboxMode{ReadOnly, WorkspaceWrite, DangerFullAccess, ExternalSandbox}
)

// grid is a 4×4 expectation: rows untrusted, on-failure, on-request, never;
// columns read-only, workspace-write, danger-full-access, external-sandbox;
// S = skip, A = needs_approval, F = forbidden.
type grid [4]string

func (g grid) at(p, m int) RequirementKind {
	switch strings.Fields(g[p])[m] {
	case "S":
		return Skip
	case "A":
		return NeedsApproval
	}
	return Forbidden
}

func TestShellRequirementMatrix(t *testing.T) {
	set := loadRules(t, matrixRules)
	kinds := []struct {
		name   string
		argv   []string
		perms  SandboxPermissions
		want   grid
		cause  Cause // the cause wherever the step applies
		bypass bool
	}{
		{"known-safe command", []string{"ls", "-la"}, UseDefault, grid{
			"S S S S", "S S S S", "S S S S", "S S S S"}, CauseKnownSafe, false},
		{"known-safe script", []string{"bash", "-lc", "git status && cat README | wc -l"}, UseDefault, grid{
			"S S S S", "S S S S", "S S S S", "S S S S"}, CauseKnownSafe, false},
		{"ordinary command", []string{"cargo", "build"}, UseDefault, grid{
			"A A A A", "S S S S", "S S S S", "S S S S"}, "", false},
		{"dynamic script", []string{"bash", "-lc", "echo $HOME > x"}, UseDefault, grid{
			"A A A A", "S S S S", "S S S S", "S S S S"}, "", false},
		{"dangerous command", []string{"rm", "-rf", "build"}, UseDefault, grid{
			"A A A A", "A A A A", "A A A A", "F F S S"}, "", false},
		{"dangerous under sudo in a script", []string{"bash", "-lc", "ls && sudo rm -f /etc/x"}, UseDefault, grid{
			"A A A A", "A A A A", "A A A A", "F F S S"}, "", false},
		{"escalation request", []string{"cargo", "build"}, RequireEscalated, grid{
			"A A A A", "A A S S", "A A S S", "F F S S"}, "", false},
		{"escalation request for a known-safe command", []string{"ls"}, RequireEscalated, grid{
			"A A S S", "A A S S", "A A S S", "F F S S"}, "", false},
		{"allow rule", []string{"make", "test", "-j4"}, UseDefault, grid{
			"S S S S", "S S S S", "S S S S", "S S S S"}, CauseRuleAllow, true},
		{"allow rule beats an escalation request", []string{"make", "test"}, RequireEscalated, grid{
			"S S S S", "S S S S", "S S S S", "S S S S"}, CauseRuleAllow, true},
		{"prompt rule", []string{"git", "push", "origin"}, UseDefault, grid{
			"A A A A", "A A A A", "A A A A", "F F F F"}, CauseRulePrompt, false},
		{"prompt rule in a script", []string{"bash", "-lc", "make test && git push"}, UseDefault, grid{
			"A A A A", "A A A A", "A A A A", "F F F F"}, CauseRulePrompt, false},
		{"forbidden rule", []string{"curl", "x"}, UseDefault, grid{
			"F F F F", "F F F F", "F F F F", "F F F F"}, CauseRuleForbidden, false},
		{"forbidden rule hidden in a substitution", []string{"bash", "-lc", "echo $(curl x)"}, UseDefault, grid{
			"F F F F", "F F F F", "F F F F", "F F F F"}, CauseRuleForbidden, false},
	}
	for _, k := range kinds {
		for pi, p := range policiesInOrder {
			for mi, m := range modesInOrder {
				r := ExecRequirement(ExecInput{Argv: k.argv, Approval: p, Sandbox: SandboxPolicy{Mode: m}, Rules: set, SandboxPermissions: k.perms})
				want := k.want.at(pi, mi)
				if r.Kind != want {
					t.Errorf("%s under %s/%s: %s (%s: %s); want %s", k.name, p, m, r.Kind, r.Cause, r.Reason, want)
				}
				if k.cause != "" && r.Cause != k.cause {
					t.Errorf("%s under %s/%s: cause %s; want %s", k.name, p, m, r.Cause, k.cause)
				}
				if r.BypassSandbox() != k.bypass {
					t.Errorf("%s under %s/%s: bypass %v; want %v", k.name, p, m, r.BypassSandbox(), k.bypass)
				}
			}
		}
	}
}

func TestShellRequirementCausesAndReasonsNameTheirSource(t *testing.T) {
	set := loadRules(t, matrixRules)
	tests := []struct {
		name   string
		in     ExecInput
		kind   RequirementKind
		cause  Cause
		reason string
	}{
		{"forbidden rule names file, line and justification",
			ExecInput{Argv: []string{"curl", "x"}, Approval: OnRequest, Rules: set},
			Forbidden, CauseRuleForbidden, "forbidden by rule /h/rules/default.rules:4: use the fetch tool"},
		{"prompt rule under never explains the conflict",
			ExecInput{Argv: []string{"git", "push"}, Approval: Never, Rules: set},
			Forbidden, CauseRulePrompt, "approval required by rule /h/rules/default.rules:3: pushes are reviewed; the approval policy is never"},
		{"escalation carries the model's justification",
			ExecInput{Argv: []string{"npm", "install"}, Approval: OnRequest, Sandbox: SandboxPolicy{Mode: WorkspaceWrite}, SandboxPermissions: RequireEscalated, Justification: "needs the network"},
			NeedsApproval, CauseEscalationRequested, "needs the network"},
		{"dangerous command",
			ExecInput{Argv: []string{"rm", "-f", "x"}, Approval: OnFailure, Sandbox: SandboxPolicy{Mode: WorkspaceWrite}},
			NeedsApproval, CauseDangerousCommand, "the command forcibly removes files (rm -f)"},
		{"untrusted policy",
			ExecInput{Argv: []string{"cargo", "build"}, Approval: Untrusted},
			NeedsApproval, CauseUntrustedPolicy, "approval policy is untrusted and the command is not known-safe"},
		{"ordinary command runs sandboxed",
			ExecInput{Argv: []string{"cargo", "build"}, Approval: OnRequest},
			Skip, CausePolicySkip, ""},
		{"unknown policy and mode fail closed",
			ExecInput{Argv: []string{"cargo", "build"}},
			NeedsApproval, CauseUntrustedPolicy, "approval policy is untrusted and the command is not known-safe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ExecRequirement(tt.in)
			if r.Kind != tt.kind || r.Cause != tt.cause || r.Reason != tt.reason {
				t.Fatalf("= %s %s %q; want %s %s %q", r.Kind, r.Cause, r.Reason, tt.kind, tt.cause, tt.reason)
			}
		})
	}
}

func TestAnAllowRuleOnPartOfAScriptDoesNotBypassTheSandbox(t *testing.T) {
	set := loadRules(t, matrixRules)
	r := ExecRequirement(ExecInput{Argv: []string{"bash", "-lc", "make test && cat log"}, Approval: Untrusted, Sandbox: SandboxPolicy{Mode: WorkspaceWrite}, Rules: set})
	if r.Kind != Skip || r.BypassSandbox() || r.Cause != CauseKnownSafe {
		t.Fatalf("= %s bypass=%v %s; want a sandboxed skip", r.Kind, r.BypassSandbox(), r.Cause)
	}
	r = ExecRequirement(ExecInput{Argv: []string{"bash", "-lc", "make test && cargo build"}, Approval: Untrusted, Rules: set})
	if r.Kind != NeedsApproval || !reflect.DeepEqual(r.ProposedAmendment, []string{"cargo", "build"}) {
		t.Fatalf("= %s %q; want needs_approval proposing the unallowed command", r.Kind, r.ProposedAmendment)
	}
}

func TestProposedAmendments(t *testing.T) {
	set := loadRules(t, matrixRules)
	tests := []struct {
		name string
		in   ExecInput
		want []string
	}{
		{"untrusted ordinary command", ExecInput{Argv: []string{"cargo", "build"}, Approval: Untrusted}, []string{"cargo", "build"}},
		{"script picks the first command that is not known-safe", ExecInput{Argv: []string{"bash", "-lc", "cd x && npm ci"}, Approval: Untrusted}, []string{"npm", "ci"}},
		{"escalation request", ExecInput{Argv: []string{"npm", "ci"}, Approval: OnRequest, SandboxPermissions: RequireEscalated}, []string{"npm", "ci"}},
		{"sandboxed skip offers one for the retry prompt", ExecInput{Argv: []string{"npm", "ci"}, Approval: OnFailure}, []string{"npm", "ci"}},
		{"not for a prompt rule", ExecInput{Argv: []string{"git", "push"}, Approval: OnRequest, Rules: set}, nil},
		{"not for a dynamic script", ExecInput{Argv: []string{"bash", "-lc", "npm ci $X"}, Approval: Untrusted}, nil},
		{"not for a script with a redirection (Codex proposes the whole bash -lc argv)", ExecInput{Argv: []string{"bash", "-lc", "touch f && echo hi > f"}, Approval: Untrusted}, nil},
		{"not for an over-broad prefix", ExecInput{Argv: []string{"python3", "-c"}, Approval: Untrusted}, nil},
		{"not for a forbidden rule", ExecInput{Argv: []string{"curl"}, Approval: Untrusted, Rules: set}, nil},
		{"not when every command is allowed", ExecInput{Argv: []string{"make", "test"}, Approval: Untrusted, Rules: set}, nil},
	}
	for _, tt := range tests {
		if got := ExecRequirement(tt.in).ProposedAmendment; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: proposal %q; want %q", tt.name, got, tt.want)
		}
	}
}

func TestTheRequirementCarriesTheEvaluationAndSafetyVerdicts(t *testing.T) {
	set := loadRules(t, matrixRules)
	r := ExecRequirement(ExecInput{Argv: []string{"git", "push"}, Approval: OnRequest, Rules: set})
	if r.Rules.Decision != rules.Prompt || len(r.Rules.Matched) != 1 || r.Rules.Matched[0].Line != 3 {
		t.Fatalf("evaluation = %+v", r.Rules)
	}
	r = ExecRequirement(ExecInput{Argv: []string{"rm", "-rf", "x"}, Approval: OnRequest})
	if !r.Dangerous || r.KnownSafe || r.String() != "needs_approval" {
		t.Fatalf("= %+v", r)
	}
}

func TestDefaultRequirementTable(t *testing.T) {
	want := grid{
		"A A A A",
		"S S S S",
		"A A S S",
		"S S S S",
	}
	for pi, p := range policiesInOrder {
		for mi, m := range modesInOrder {
			if got := DefaultRequirement(p, m).Kind; got != want.at(pi, mi) {
				t.Errorf("DefaultRequirement(%s, %s) = %s; want %s", p, m, got, want.at(pi, mi))
			}
		}
	}
}

func TestProjectAllowRulesSkipThePromptButKeepTheSandbox(t *testing.T) {
	set, err := rules.LoadSources([]events.RuleSource{
		{Path: "/h/rules/default.rules", Text: `prefix_rule(pattern=["make", "test"], decision="allow")`},
		{Path: "/w/.docket/rules/p.rules", Text: `prefix_rule(pattern=["cargo", "build"], decision="allow")`, Project: true},
	}, rules.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	project := map[string]bool{"/w/.docket/rules/p.rules": true}
	tests := []struct {
		name   string
		argv   []string
		bypass bool
	}{
		{"the user's allow rule lifts the sandbox", []string{"make", "test"}, true},
		{"a project allow rule does not", []string{"cargo", "build"}, false},
		{"a script allowed partly by the project does not", []string{"bash", "-lc", "make test && cargo build"}, false},
	}
	for _, tt := range tests {
		r := ExecRequirement(ExecInput{Argv: tt.argv, Approval: OnRequest, Sandbox: SandboxPolicy{Mode: WorkspaceWrite}, Rules: set, ProjectRules: project})
		if r.Kind != Skip || r.Cause != CauseRuleAllow || r.BypassSandbox() != tt.bypass {
			t.Errorf("%s: %s %s bypass=%v; want skip rule_allow bypass=%v", tt.name, r.Kind, r.Cause, r.BypassSandbox(), tt.bypass)
		}
		if !tt.bypass && !strings.Contains(r.Reason, "project rule") {
			t.Errorf("%s: reason %q does not say it is a project rule", tt.name, r.Reason)
		}
	}
}
