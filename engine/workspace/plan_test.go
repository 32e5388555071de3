package workspace

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
)

// workspace makes a real directory tree: a project with a .git directory, a
// linked worktree whose .git is a gitdir file, a symlink to the project, and
// a tmpdir.
type workspace struct {
	root, project, worktree, link, tmpdir string
}

func newWorkspace(t *testing.T) workspace {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := workspace{
		root:     root,
		project:  filepath.Join(root, "project"),
		worktree: filepath.Join(root, "project", "wt"),
		link:     filepath.Join(root, "link"),
		tmpdir:   filepath.Join(root, "tmp"),
	}
	for _, d := range []string{
		filepath.Join(w.project, ".git", "worktrees", "wt"), w.worktree, w.tmpdir,
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(w.worktree, ".git"), "gitdir: ../.git/worktrees/wt\n")
	write(t, filepath.Join(w.project, ".git", "worktrees", "wt", "commondir"), "../..\n")
	if err := os.Symlink(w.project, w.link); err != nil {
		t.Fatal(err)
	}
	return w
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWritableRootsAreCanonicalDedupedAndSorted(t *testing.T) {
	w := newWorkspace(t)
	tests := []struct {
		name string
		sb   policy.SandboxPolicy
		cwd  string
		want []string
	}{
		{"cwd, /tmp and $TMPDIR", policy.SandboxPolicy{Mode: policy.WorkspaceWrite}, w.project,
			[]string{w.project, w.tmpdir, "/tmp"}},
		{"symlinked cwd resolves and configured duplicates collapse", policy.SandboxPolicy{Mode: policy.WorkspaceWrite, WritableRoots: []string{w.project, "."}}, w.link,
			[]string{w.project, w.tmpdir, "/tmp"}},
		{"relative configured root is taken against cwd", policy.SandboxPolicy{Mode: policy.WorkspaceWrite, WritableRoots: []string{"../extra"}, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}, w.project,
			[]string{filepath.Join(w.root, "extra"), w.project}},
		{"exclusions", policy.SandboxPolicy{Mode: policy.WorkspaceWrite, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}, w.project,
			[]string{w.project}},
		{"read-only has none", policy.SandboxPolicy{Mode: policy.ReadOnly}, w.project, nil},
	}
	for _, tt := range tests {
		got := WritableRoots(tt.sb, tt.cwd, w.tmpdir)
		want := append([]string(nil), tt.want...)
		for i, p := range want {
			want[i] = RealPath(p)
		}
		slices.Sort(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: WritableRoots = %q; want %q", tt.name, got, want)
		}
	}
}

func TestTheSandboxPlanProtectsGitDocketAgentsAndCodexUnderEveryRoot(t *testing.T) {
	w := newWorkspace(t)
	sb := policy.SandboxPolicy{Mode: policy.WorkspaceWrite, ExcludeSlashTmp: true, WritableRoots: []string{w.worktree}, NetworkAccess: true}
	got := SandboxPlan(sb, w.project, w.tmpdir, true)
	want := events.SandboxPlan{
		Mode:          "workspace-write",
		WritableRoots: []string{w.project, w.worktree, w.tmpdir},
		ReadOnlySubpaths: []string{
			filepath.Join(w.project, ".agents"), filepath.Join(w.project, ".codex"), filepath.Join(w.project, ".docket"), filepath.Join(w.project, ".git"),
			filepath.Join(w.project, ".git", "worktrees", "wt"),
			filepath.Join(w.worktree, ".agents"), filepath.Join(w.worktree, ".codex"), filepath.Join(w.worktree, ".docket"), filepath.Join(w.worktree, ".git"),
			filepath.Join(w.tmpdir, ".agents"), filepath.Join(w.tmpdir, ".codex"), filepath.Join(w.tmpdir, ".docket"), filepath.Join(w.tmpdir, ".git"),
		},
		Network:               true,
		RequireProtectedPaths: true,
	}
	slices.Sort(want.WritableRoots)
	slices.Sort(want.ReadOnlySubpaths)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("plan =\n%+v\nwant\n%+v", got, want)
	}
}

func TestPlansForOtherModes(t *testing.T) {
	for _, tt := range []struct {
		mode policy.SandboxMode
		want events.SandboxPlan
	}{
		{policy.ReadOnly, events.SandboxPlan{Mode: "read-only"}},
		{policy.DangerFullAccess, events.SandboxPlan{Mode: "none"}},
		{policy.ExternalSandbox, events.SandboxPlan{Mode: "none"}},
		{"", events.SandboxPlan{Mode: "read-only"}},
	} {
		got := SandboxPlan(policy.SandboxPolicy{Mode: tt.mode, NetworkAccess: true}, "/w", "", false)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: plan %+v; want %+v", tt.mode, got, tt.want)
		}
	}
}

func TestPatchRequirementOnResolvedPaths(t *testing.T) {
	w := newWorkspace(t)
	if err := os.Symlink("/etc", filepath.Join(w.project, "etc-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nonexistent-dir/x", filepath.Join(w.project, "dangling")); err != nil {
		t.Fatal(err)
	}
	ww := policy.SandboxPolicy{Mode: policy.WorkspaceWrite, ExcludeSlashTmp: true}
	tests := []struct {
		name     string
		approval policy.ApprovalPolicy
		sb       policy.SandboxPolicy
		paths    []string
		kind     policy.RequirementKind
		cause    policy.Cause
	}{
		{"inside the project", policy.OnRequest, ww, []string{filepath.Join(w.project, "a.go"), filepath.Join(w.project, "new", "b.go")}, policy.Skip, policy.CausePolicySkip},
		{"relative path is refused", policy.OnRequest, ww, []string{"src/c.go"}, policy.NeedsApproval, policy.CauseOutsideWritableRoots},
		{"tmpdir root", policy.OnRequest, ww, []string{filepath.Join(w.tmpdir, "x")}, policy.Skip, policy.CausePolicySkip},
		{"one path outside", policy.OnRequest, ww, []string{filepath.Join(w.project, "a.go"), "/etc/passwd"}, policy.NeedsApproval, policy.CauseOutsideWritableRoots},
		{"outside under never", policy.Never, ww, []string{"/etc/passwd"}, policy.Forbidden, policy.CauseOutsideWritableRoots},
		{"dot-dot escape", policy.OnFailure, ww, []string{filepath.Join(w.project, "..", "elsewhere")}, policy.NeedsApproval, policy.CauseOutsideWritableRoots},
		{"symlink escape", policy.OnFailure, ww, []string{filepath.Join(w.project, "etc-link", "passwd")}, policy.NeedsApproval, policy.CauseOutsideWritableRoots},
		{"dangling symlink escape", policy.OnFailure, ww, []string{filepath.Join(w.project, "dangling")}, policy.NeedsApproval, policy.CauseOutsideWritableRoots},
		{"protected .git", policy.OnRequest, ww, []string{filepath.Join(w.project, ".git", "hooks", "pre-commit")}, policy.NeedsApproval, policy.CauseOutsideWritableRoots},
		{"protected .docket", policy.OnRequest, ww, []string{filepath.Join(w.project, ".docket", "rules", "x.rules")}, policy.NeedsApproval, policy.CauseOutsideWritableRoots},
		{"read-only mode", policy.OnRequest, policy.SandboxPolicy{Mode: policy.ReadOnly}, []string{filepath.Join(w.project, "a.go")}, policy.NeedsApproval, policy.CauseOutsideWritableRoots},
		{"untrusted always asks", policy.Untrusted, policy.SandboxPolicy{Mode: policy.DangerFullAccess}, []string{filepath.Join(w.project, "a.go")}, policy.NeedsApproval, policy.CauseUntrustedPolicy},
		{"danger-full-access", policy.Never, policy.SandboxPolicy{Mode: policy.DangerFullAccess}, []string{"/etc/passwd"}, policy.Skip, policy.CauseDangerFullAccess},
		{"external sandbox", policy.OnRequest, policy.SandboxPolicy{Mode: policy.ExternalSandbox}, []string{"/etc/passwd"}, policy.Skip, policy.CauseExternalSandbox},
		{"no paths", policy.OnRequest, ww, nil, policy.NeedsApproval, policy.CauseOutsideWritableRoots},
	}
	for _, tt := range tests {
		plan := SandboxPlan(tt.sb, w.project, w.tmpdir, false)
		real := make([]string, len(tt.paths))
		for i, p := range tt.paths {
			real[i] = RealPath(p)
		}
		r := policy.PatchRequirement(real, tt.approval, tt.sb, plan)
		if r.Kind != tt.kind || r.Cause != tt.cause {
			t.Errorf("%s: %s %s (%s); want %s %s", tt.name, r.Kind, r.Cause, r.Reason, tt.kind, tt.cause)
		}
	}
}

func TestRealPathFollowsSymlinksBeforeDotDot(t *testing.T) {
	w := newWorkspace(t)
	deep := filepath.Join(w.root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(deep, filepath.Join(w.project, "deep")); err != nil {
		t.Fatal(err)
	}
	// project/deep/../x is root/a/x for the kernel, not project/x.
	for in, want := range map[string]string{
		filepath.Join(w.project, "deep") + "/../x":    filepath.Join(w.root, "a", "x"),
		filepath.Join(w.project, "new") + "/./y/../z": filepath.Join(w.project, "new", "z"),
		w.link + "/sub/file":                          filepath.Join(w.project, "sub", "file"),
	} {
		if got := RealPath(in); got != want {
			t.Errorf("RealPath(%q) = %q; want %q", in, got, want)
		}
	}
}
