package policy

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/docket-engine/docket/events"
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
		sb   SandboxPolicy
		cwd  string
		want []string
	}{
		{"cwd, /tmp and $TMPDIR", SandboxPolicy{Mode: WorkspaceWrite}, w.project,
			[]string{w.project, w.tmpdir, "/tmp"}},
		{"symlinked cwd resolves and configured duplicates collapse", SandboxPolicy{Mode: WorkspaceWrite, WritableRoots: []string{w.project, "."}}, w.link,
			[]string{w.project, w.tmpdir, "/tmp"}},
		{"relative configured root is taken against cwd", SandboxPolicy{Mode: WorkspaceWrite, WritableRoots: []string{"../extra"}, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}, w.project,
			[]string{filepath.Join(w.root, "extra"), w.project}},
		{"exclusions", SandboxPolicy{Mode: WorkspaceWrite, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}, w.project,
			[]string{w.project}},
		{"read-only has none", SandboxPolicy{Mode: ReadOnly}, w.project, nil},
	}
	for _, tt := range tests {
		got := WritableRoots(tt.sb, tt.cwd, w.tmpdir)
		want := append([]string(nil), tt.want...)
		for i, p := range want {
			want[i] = Canonical(p)
		}
		slices.Sort(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: WritableRoots = %q; want %q", tt.name, got, want)
		}
	}
}

func TestTheSandboxPlanProtectsGitDocketAndAgentsUnderEveryRoot(t *testing.T) {
	w := newWorkspace(t)
	sb := SandboxPolicy{Mode: WorkspaceWrite, ExcludeSlashTmp: true, WritableRoots: []string{w.worktree}, NetworkAccess: true}
	got := SandboxPlan(sb, w.project, w.tmpdir, true)
	want := events.SandboxPlan{
		Mode:          "workspace-write",
		WritableRoots: []string{w.project, w.worktree, w.tmpdir},
		ReadOnlySubpaths: []string{
			filepath.Join(w.project, ".agents"), filepath.Join(w.project, ".docket"), filepath.Join(w.project, ".git"),
			filepath.Join(w.project, ".git", "worktrees", "wt"),
			filepath.Join(w.worktree, ".agents"), filepath.Join(w.worktree, ".docket"), filepath.Join(w.worktree, ".git"),
			filepath.Join(w.tmpdir, ".agents"), filepath.Join(w.tmpdir, ".docket"), filepath.Join(w.tmpdir, ".git"),
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
		mode SandboxMode
		want events.SandboxPlan
	}{
		{ReadOnly, events.SandboxPlan{Mode: "read-only"}},
		{DangerFullAccess, events.SandboxPlan{Mode: "none"}},
		{ExternalSandbox, events.SandboxPlan{Mode: "none"}},
		{"", events.SandboxPlan{Mode: "read-only"}},
	} {
		got := SandboxPlan(SandboxPolicy{Mode: tt.mode, NetworkAccess: true}, "/w", "", false)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: plan %+v; want %+v", tt.mode, got, tt.want)
		}
	}
}

func TestPatchRequirement(t *testing.T) {
	w := newWorkspace(t)
	if err := os.Symlink("/etc", filepath.Join(w.project, "etc-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nonexistent-dir/x", filepath.Join(w.project, "dangling")); err != nil {
		t.Fatal(err)
	}
	ww := SandboxPolicy{Mode: WorkspaceWrite, ExcludeSlashTmp: true}
	tests := []struct {
		name     string
		approval ApprovalPolicy
		sb       SandboxPolicy
		paths    []string
		kind     RequirementKind
		cause    Cause
	}{
		{"inside the project", OnRequest, ww, []string{filepath.Join(w.project, "a.go"), filepath.Join(w.project, "new", "b.go")}, Skip, CausePolicySkip},
		{"relative path is refused", OnRequest, ww, []string{"src/c.go"}, NeedsApproval, CauseOutsideWritableRoots},
		{"tmpdir root", OnRequest, ww, []string{filepath.Join(w.tmpdir, "x")}, Skip, CausePolicySkip},
		{"one path outside", OnRequest, ww, []string{filepath.Join(w.project, "a.go"), "/etc/passwd"}, NeedsApproval, CauseOutsideWritableRoots},
		{"outside under never", Never, ww, []string{"/etc/passwd"}, Forbidden, CauseOutsideWritableRoots},
		{"dot-dot escape", OnFailure, ww, []string{filepath.Join(w.project, "..", "elsewhere")}, NeedsApproval, CauseOutsideWritableRoots},
		{"symlink escape", OnFailure, ww, []string{filepath.Join(w.project, "etc-link", "passwd")}, NeedsApproval, CauseOutsideWritableRoots},
		{"dangling symlink escape", OnFailure, ww, []string{filepath.Join(w.project, "dangling")}, NeedsApproval, CauseOutsideWritableRoots},
		{"protected .git", OnRequest, ww, []string{filepath.Join(w.project, ".git", "hooks", "pre-commit")}, NeedsApproval, CauseOutsideWritableRoots},
		{"protected .docket", OnRequest, ww, []string{filepath.Join(w.project, ".docket", "rules", "x.rules")}, NeedsApproval, CauseOutsideWritableRoots},
		{"read-only mode", OnRequest, SandboxPolicy{Mode: ReadOnly}, []string{filepath.Join(w.project, "a.go")}, NeedsApproval, CauseOutsideWritableRoots},
		{"untrusted always asks", Untrusted, SandboxPolicy{Mode: DangerFullAccess}, []string{filepath.Join(w.project, "a.go")}, NeedsApproval, CauseUntrustedPolicy},
		{"danger-full-access", Never, SandboxPolicy{Mode: DangerFullAccess}, []string{"/etc/passwd"}, Skip, CauseDangerFullAccess},
		{"external sandbox", OnRequest, SandboxPolicy{Mode: ExternalSandbox}, []string{"/etc/passwd"}, Skip, CauseExternalSandbox},
		{"no paths", OnRequest, ww, nil, NeedsApproval, CauseOutsideWritableRoots},
	}
	for _, tt := range tests {
		plan := SandboxPlan(tt.sb, w.project, w.tmpdir, false)
		r := PatchRequirement(tt.paths, tt.approval, tt.sb, plan)
		if r.Kind != tt.kind || r.Cause != tt.cause {
			t.Errorf("%s: %s %s (%s); want %s %s", tt.name, r.Kind, r.Cause, r.Reason, tt.kind, tt.cause)
		}
	}
}

func TestCanonicalFollowsSymlinksBeforeDotDot(t *testing.T) {
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
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q; want %q", in, got, want)
		}
	}
}
