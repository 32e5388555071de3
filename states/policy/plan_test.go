package policy

import (
	"reflect"
	"testing"

	"github.com/docket-engine/docket/events"
)

// These tests need no disk: the roots and git directories are given as
// engine/workspace would resolve them (its tests cover the disk side).

func TestRootCandidatesFollowTheConfiguration(t *testing.T) {
	tests := []struct {
		name   string
		sb     SandboxPolicy
		cwd    string
		tmpdir string
		want   []string
	}{
		{"cwd, /tmp and $TMPDIR", SandboxPolicy{Mode: WorkspaceWrite}, "/w", "/t", []string{"/w", "/tmp", "/t"}},
		{"relative configured root against cwd", SandboxPolicy{Mode: WorkspaceWrite, WritableRoots: []string{"../x", ""}, ExcludeSlashTmp: true}, "/w/p", "", []string{"/w/p", "/w/x"}},
		{"relative $TMPDIR is ignored", SandboxPolicy{Mode: WorkspaceWrite, ExcludeSlashTmp: true}, "/w", "tmp", []string{"/w"}},
		{"excluded $TMPDIR", SandboxPolicy{Mode: WorkspaceWrite, ExcludeTmpdirEnvVar: true}, "/w", "/t", []string{"/w", "/tmp"}},
		{"read-only has none", SandboxPolicy{Mode: ReadOnly}, "/w", "/t", nil},
	}
	for _, tt := range tests {
		if got := RootCandidates(tt.sb, tt.cwd, tt.tmpdir); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q; want %q", tt.name, got, tt.want)
		}
	}
}

func TestBuildSandboxPlanProtectsEveryRootAndGitDirsInsideThem(t *testing.T) {
	sb := SandboxPolicy{Mode: WorkspaceWrite, NetworkAccess: true}
	got := BuildSandboxPlan(sb, []string{"/w", "/t", "/w"}, []string{"/w/.git/worktrees/wt", "/elsewhere/.git"}, true)
	want := events.SandboxPlan{
		Mode:          "workspace-write",
		WritableRoots: []string{"/t", "/w"},
		ReadOnlySubpaths: []string{"/t/.agents", "/t/.codex", "/t/.docket", "/t/.git",
			"/w/.agents", "/w/.codex", "/w/.docket", "/w/.git", "/w/.git/worktrees/wt"},
		Network:               true,
		RequireProtectedPaths: true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("plan =\n%+v\nwant\n%+v", got, want)
	}
}

func TestPlansForOtherModes(t *testing.T) {
	for _, tt := range []struct {
		mode SandboxMode
		want events.SandboxPlan
	}{
		{ReadOnly, events.SandboxPlan{Mode: "read-only"}},
		{DangerFullAccess, events.SandboxPlan{Mode: "none"}},
		{ExternalSandbox, events.SandboxPlan{Mode: "none"}},
		{"", events.SandboxPlan{Mode: "read-only"}},
	} {
		got := BuildSandboxPlan(SandboxPolicy{Mode: tt.mode, NetworkAccess: true}, []string{"/w"}, nil, false)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: plan %+v; want %+v", tt.mode, got, tt.want)
		}
	}
}

func TestPatchRequirementJudgesResolvedPaths(t *testing.T) {
	ww := SandboxPolicy{Mode: WorkspaceWrite, ExcludeSlashTmp: true}
	plan := BuildSandboxPlan(ww, []string{"/w"}, nil, false)
	tests := []struct {
		name     string
		approval ApprovalPolicy
		sb       SandboxPolicy
		paths    []string
		kind     RequirementKind
		cause    Cause
	}{
		{"inside the project", OnRequest, ww, []string{"/w/a.go", "/w/new/b.go"}, Skip, CausePolicySkip},
		{"a relative path is refused", OnRequest, ww, []string{"src/c.go"}, NeedsApproval, CauseOutsideWritableRoots},
		{"an unresolved path is refused", OnRequest, ww, []string{"/w/../etc/passwd"}, NeedsApproval, CauseOutsideWritableRoots},
		{"a sibling sharing the prefix is outside", OnRequest, ww, []string{"/wx/a"}, NeedsApproval, CauseOutsideWritableRoots},
		{"one path outside", OnRequest, ww, []string{"/w/a.go", "/etc/passwd"}, NeedsApproval, CauseOutsideWritableRoots},
		{"outside under never", Never, ww, []string{"/etc/passwd"}, Forbidden, CauseOutsideWritableRoots},
		{"protected .git", OnRequest, ww, []string{"/w/.git/hooks/pre-commit"}, NeedsApproval, CauseOutsideWritableRoots},
		{"untrusted always asks", Untrusted, SandboxPolicy{Mode: DangerFullAccess}, []string{"/w/a.go"}, NeedsApproval, CauseUntrustedPolicy},
		{"danger-full-access", Never, SandboxPolicy{Mode: DangerFullAccess}, []string{"/etc/passwd"}, Skip, CauseDangerFullAccess},
		{"external sandbox", OnRequest, SandboxPolicy{Mode: ExternalSandbox}, []string{"/etc/passwd"}, Skip, CauseExternalSandbox},
		{"no paths", OnRequest, ww, nil, NeedsApproval, CauseOutsideWritableRoots},
	}
	for _, tt := range tests {
		r := PatchRequirement(tt.paths, tt.approval, tt.sb, plan)
		if r.Kind != tt.kind || r.Cause != tt.cause {
			t.Errorf("%s: %s %s (%s); want %s %s", tt.name, r.Kind, r.Cause, r.Reason, tt.kind, tt.cause)
		}
	}
}
