package policy

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

func TestRetryAfterASandboxDenial(t *testing.T) {
	// allowed[tool][policy]: may the call run again without the sandbox?
	allowed := map[string]map[ApprovalPolicy]bool{
		ToolShell:      {Untrusted: true, OnFailure: true, OnRequest: false, Never: false},
		ToolApplyPatch: {Untrusted: true, OnFailure: true, OnRequest: true, Never: false},
	}
	for tool, byPolicy := range allowed {
		for _, p := range policiesInOrder {
			for _, already := range []bool{false, true} {
				got := Retry(RetryInput{Approval: p, Tool: tool, EscalationAllowed: true, AlreadyApproved: already})
				var want RetryRule
				switch {
				case !byPolicy[p]:
					want = RetryRule{Cause: CauseRetryNotAllowed}
				case already:
					want = RetryRule{Allowed: true, Cause: CauseAlreadyApproved}
				default:
					want = RetryRule{Allowed: true, Ask: true, Reason: "command failed; retry without sandbox?", Cause: CauseSandboxDenial}
				}
				if got != want {
					t.Errorf("%s under %s (already approved %v): %+v; want %+v", tool, p, already, got, want)
				}
				if RetryAllowed(p, tool) != byPolicy[p] {
					t.Errorf("RetryAllowed(%s, %s) = %v; want %v", p, tool, !byPolicy[p], byPolicy[p])
				}
			}
		}
	}
	for _, p := range policiesInOrder {
		if got := Retry(RetryInput{Approval: p, Tool: ToolShell, EscalationAllowed: false, AlreadyApproved: true}); got.Allowed {
			t.Errorf("a tool that does not allow escalation retried unsandboxed under %s", p)
		}
	}
}

func TestSandboxSelection(t *testing.T) {
	skip := Requirement{Kind: Skip, Cause: CausePolicySkip}
	bypass := Requirement{Kind: Skip, Cause: CauseRuleAllow, bypassSandbox: true}
	ask := Requirement{Kind: NeedsApproval, Cause: CauseEscalationRequested}
	tests := []struct {
		name string
		in   SelectInput
		want Selection
	}{
		{"danger-full-access", SelectInput{Mode: DangerFullAccess, Requirement: skip}, Selection{false, CauseDangerFullAccess}},
		{"external sandbox", SelectInput{Mode: ExternalSandbox, Requirement: skip}, Selection{false, CauseExternalSandbox}},
		{"allow rule bypass", SelectInput{Mode: WorkspaceWrite, Requirement: bypass}, Selection{false, CauseRuleAllow}},
		{"ordinary skip", SelectInput{Mode: WorkspaceWrite, Requirement: skip}, Selection{true, CausePolicySkip}},
		{"user approved an escalation", SelectInput{Mode: ReadOnly, Requirement: ask, EscalationRequested: true, ApprovedBy: CauseUserApproved}, Selection{false, CauseUserApproved}},
		{"session grant for an escalation", SelectInput{Mode: ReadOnly, Requirement: ask, EscalationRequested: true, ApprovedBy: CauseSessionGrant}, Selection{false, CauseSessionGrant}},
		{"the model's request alone is not enough", SelectInput{Mode: ReadOnly, Requirement: skip, EscalationRequested: true}, Selection{true, CausePolicySkip}},
		{"approval without escalation keeps the sandbox", SelectInput{Mode: WorkspaceWrite, Requirement: Requirement{Kind: NeedsApproval, Cause: CauseUntrustedPolicy}, ApprovedBy: CauseUserApproved}, Selection{true, CauseUserApproved}},
		{"unknown mode sandboxes", SelectInput{Requirement: skip}, Selection{true, CausePolicySkip}},
		{"out-of-process tool has no sandbox to select", SelectInput{Mode: ReadOnly, Requirement: skip, OutOfProcess: true}, Selection{false, CauseOutOfProcess}},
		{"out-of-process wins over danger-full-access", SelectInput{Mode: DangerFullAccess, Requirement: skip, OutOfProcess: true}, Selection{false, CauseOutOfProcess}},
		{"a requirement without a cause runs by policy", SelectInput{Mode: ReadOnly, Requirement: Requirement{Kind: Skip}}, Selection{true, CausePolicySkip}},
		{"a skip built outside the allow-rule step cannot bypass", SelectInput{Mode: WorkspaceWrite, Requirement: Requirement{Kind: Skip, Cause: CauseRuleAllow}}, Selection{true, CauseRuleAllow}},
	}
	for _, tt := range tests {
		if got := SelectSandbox(tt.in); got != tt.want {
			t.Errorf("%s: %+v; want %+v", tt.name, got, tt.want)
		}
	}
}

func TestEverySpellingParsesAndPrintsBack(t *testing.T) {
	for _, s := range []string{"untrusted", "on-failure", "on-request", "never"} {
		if p, err := ParseApprovalPolicy(s); err != nil || p.String() != s {
			t.Errorf("ParseApprovalPolicy(%q) = %q, %v", s, p, err)
		}
	}
	for _, s := range []string{"read-only", "workspace-write", "danger-full-access", "external-sandbox"} {
		if m, err := ParseSandboxMode(s); err != nil || m.String() != s {
			t.Errorf("ParseSandboxMode(%q) = %q, %v", s, m, err)
		}
	}
	for _, s := range []string{"approved", "approved_for_session", "approved_execpolicy_amendment", "denied", "abort", "timed_out"} {
		if d, err := ParseReviewDecision(s); err != nil || d.String() != s {
			t.Errorf("ParseReviewDecision(%q) = %q, %v", s, d, err)
		}
	}
	for _, s := range []string{"skip", "needs_approval", "forbidden"} {
		if k, err := ParseRequirementKind(s); err != nil || string(k) != s || (Requirement{Kind: k}).String() != s {
			t.Errorf("ParseRequirementKind(%q) = %q, %v", s, k, err)
		}
	}
	if p, err := ParseSandboxPermissions(""); err != nil || p != UseDefault {
		t.Errorf("empty sandbox_permissions = %q, %v", p, err)
	}
	approvals := 0
	for _, d := range reviewDecisions() {
		if d.IsApproval() {
			approvals++
		}
	}
	if approvals != 3 {
		t.Errorf("%d decisions approve; want 3", approvals)
	}
}

func TestBadSpellingsSuggestTheNearestOne(t *testing.T) {
	tests := []struct {
		parse       func(string) error
		in, suggest string
	}{
		{func(s string) error { _, err := ParseApprovalPolicy(s); return err }, "on-reqest", "on-request"},
		{func(s string) error { _, err := ParseApprovalPolicy(s); return err }, "on_failure", "on-failure"},
		{func(s string) error { _, err := ParseApprovalPolicy(s); return err }, "Never", "never"},
		{func(s string) error { _, err := ParseSandboxMode(s); return err }, "workspace_write", "workspace-write"},
		{func(s string) error { _, err := ParseSandboxMode(s); return err }, "readonly", "read-only"},
		{func(s string) error { _, err := ParseReviewDecision(s); return err }, "aproved", "approved"},
		{func(s string) error { _, err := ParseReviewDecision(s); return err }, "approved-for-session", "approved_for_session"},
		{func(s string) error { _, err := ParseSandboxPermissions(s); return err }, "require_escalation", "require_escalated"},
		{func(s string) error { _, err := ParseSandboxMode(s); return err }, "banana", ""},
	}
	for _, tt := range tests {
		err := tt.parse(tt.in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("%q: err = %v; want a *ParseError", tt.in, err)
		}
		if pe.Suggestion != tt.suggest {
			t.Errorf("%q: suggestion %q; want %q (%v)", tt.in, pe.Suggestion, tt.suggest, err)
		}
		if !strings.Contains(err.Error(), `"`+tt.in+`"`) || !strings.Contains(err.Error(), "valid: ") {
			t.Errorf("%q: message %q must quote the input and list valid values", tt.in, err)
		}
	}
}

func TestFromConfig(t *testing.T) {
	ap, sb, err := FromConfig(events.SessionConfig{})
	if err != nil || ap != OnRequest || sb.Mode != ReadOnly {
		t.Fatalf("defaults = %s %+v %v; want on-request read-only", ap, sb, err)
	}
	ap, sb, err = FromConfig(events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write", WritableRoots: []string{"/x"}, NetworkAccess: true, ExcludeSlashTmp: true})
	want := SandboxPolicy{Mode: WorkspaceWrite, WritableRoots: []string{"/x"}, NetworkAccess: true, ExcludeSlashTmp: true}
	if err != nil || ap != Never || !reflect.DeepEqual(sb, want) {
		t.Fatalf("= %s %+v %v", ap, sb, err)
	}
	if _, _, err := FromConfig(events.SessionConfig{SandboxMode: "full"}); err == nil || !strings.Contains(err.Error(), "sandbox_mode") {
		t.Fatalf("bad mode error = %v; want one naming sandbox_mode", err)
	}
}

func TestMCPRequirementFollowsTheServerAndThePolicy(t *testing.T) {
	tests := []struct {
		name  string
		ap    ApprovalPolicy
		needs bool
		kind  RequirementKind
		cause Cause
	}{
		{"no approval needed runs out of process", OnRequest, false, Skip, CauseOutOfProcess},
		{"no approval needed even under never", Never, false, Skip, CauseOutOfProcess},
		{"approval needed asks", OnRequest, true, NeedsApproval, CauseNeedsApproval},
		{"approval needed under never is forbidden", Never, true, Forbidden, CausePolicyForbidden},
	}
	for _, tt := range tests {
		r := MCPRequirement(tt.ap, tt.needs, "the server says so")
		if r.Kind != tt.kind || r.Cause != tt.cause || !strings.Contains(r.Reason, "the server says so") || r.BypassSandbox() {
			t.Errorf("%s: %s %s %q bypass=%v", tt.name, r.Kind, r.Cause, r.Reason, r.BypassSandbox())
		}
	}
}

func TestNearestSuggestsPlausibleMisspellingsOnly(t *testing.T) {
	valid := []string{"untrusted", "on-failure", "on-request", "never", "read-only", "workspace-write", "danger-full-access", "external-sandbox"}
	for _, tc := range []struct {
		word string
		want string
	}{
		{"on-requst", "on-request"},
		{"ON-REQUEST", "on-request"},
		{"untrsted", "untrusted"},
		{"workspace_write", "workspace-write"},
		{"danger", "danger-full-access"},
		{"on", ""},
		{"on-fail", "on-failure"},
		{"zzz", ""},
	} {
		if got := Nearest(tc.word, valid); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	if d := levenshtein("kitten", "sitting"); d != 3 {
		t.Errorf("levenshtein = %d, want 3", d)
	}
}
