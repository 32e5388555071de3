package sandbox

import (
	"context"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/gitwalk"
)

// TestGitWalkCacheProtectsARepositoryMadeBetweenCalls runs real sandboxed
// commands with one cache across calls: a repository made on the host
// after the first call (the walk kept, not done again) is read-only for
// the second and the third. The same write works without the sandbox.
func TestGitWalkCacheProtectsARepositoryMadeBetweenCalls(t *testing.T) {
	caps := Probe()
	if err := caps.Check(events.SandboxPlan{Mode: ModeWorkspaceWrite}); err != nil {
		t.Skip(err)
	}
	ws := t.TempDir()
	c := &gitwalk.Cache{}
	defer func() { _ = c.Close() }()
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{ws}, ReadOnlySubpaths: []string{filepath.Join(ws, ".git")}}
	run := func(p events.SandboxPlan, argv ...string) events.ExecOutcome {
		t.Helper()
		out, err := Run(context.Background(), Request{Argv: argv, Cwd: ws, Plan: p, Caps: &caps, GitWalks: c})
		if err != nil {
			t.Fatalf("Run(%v): %v", argv, err)
		}
		return out
	}
	if out := run(plan, "true"); out.ExitCode != 0 {
		t.Fatalf("first call: exit %d: %s", out.ExitCode, out.Stderr)
	}
	if c.Walks() != 1 {
		t.Fatalf("walks = %d after the first call, want 1", c.Walks())
	}
	hook := func(repo string) string { return filepath.Join(ws, repo, ".git", "hooks", "pre-commit") }
	// Unsandboxed, planting the hook works.
	mkdirs(t, filepath.Dir(hook("control")))
	if out := run(events.SandboxPlan{Mode: ModeNone}, "sh", "-c", "echo evil > "+hook("control")); out.ExitCode != 0 || !exists(hook("control")) {
		t.Fatalf("unsandboxed write of %s failed: exit %d %s", hook("control"), out.ExitCode, out.Stderr)
	}
	mkdirs(t, filepath.Dir(hook("late")))
	out := run(plan, "sh", "-c", "echo evil > "+hook("late"))
	if exists(hook("late")) {
		t.Fatalf("the hook was planted in a repository made after the walk was kept (exit %d)", out.ExitCode)
	}
	if out.ExitCode == 0 {
		t.Errorf("the write reported success: %+v", out)
	}
	if c.Walks() != 1 {
		t.Errorf("walks = %d, want 1 (the new repository is added to the kept walk)", c.Walks())
	}
	// With nothing changed since, the third call uses the kept walk and
	// still protects the repository.
	if out := run(plan, "sh", "-c", "echo evil > "+hook("late")); out.ExitCode == 0 || exists(hook("late")) {
		t.Errorf("third call: the hook was planted (exit %d)", out.ExitCode)
	}
	if c.Walks() != 1 {
		t.Errorf("walks = %d after an unchanged call, want 1", c.Walks())
	}
}

func TestGitWalkCacheProtectsARepositoryMountedBetweenCalls(t *testing.T) {
	caps := Probe()
	if err := caps.Check(events.SandboxPlan{Mode: ModeWorkspaceWrite}); err != nil {
		t.Skip(err)
	}
	if !caps.Root {
		t.Skip("mounts on the host: needs root")
	}
	ws, outside := t.TempDir(), t.TempDir()
	c := &gitwalk.Cache{}
	defer func() { _ = c.Close() }()
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{ws}, ReadOnlySubpaths: []string{filepath.Join(ws, ".git")}}
	run := func(argv ...string) events.ExecOutcome {
		t.Helper()
		out, err := Run(context.Background(), Request{Argv: argv, Cwd: ws, Plan: plan, Caps: &caps, GitWalks: c})
		if err != nil {
			t.Fatalf("Run(%v): %v", argv, err)
		}
		return out
	}
	mkdirs(t, filepath.Join(ws, "vendor"))
	if out := run("true"); out.ExitCode != 0 || c.Walks() != 1 {
		t.Fatalf("first call: exit %d, walks %d", out.ExitCode, c.Walks())
	}
	// A repository appears by a bind mount, which no inotify watch sees:
	// only the mount table says the kept walk is out of date.
	mkdirs(t, filepath.Join(outside, ".git", "hooks"))
	if err := unix.Mount(outside, filepath.Join(ws, "vendor"), "", unix.MS_BIND, ""); err != nil {
		t.Skipf("bind mount: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(filepath.Join(ws, "vendor"), unix.MNT_DETACH) })
	hook := filepath.Join(ws, "vendor", ".git", "hooks", "pre-commit")
	out := run("sh", "-c", "echo evil > "+hook)
	if exists(hook) {
		t.Fatalf("the hook was planted in a repository mounted after the walk was kept (exit %d, walks %d)", out.ExitCode, c.Walks())
	}
	if c.Walks() != 2 {
		t.Errorf("walks = %d, want 2 (the mount makes the walk start again)", c.Walks())
	}
}
