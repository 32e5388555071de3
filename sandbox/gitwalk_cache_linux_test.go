package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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
	wantWalks(t, c, 1, "the new repository is added to the kept walk")
	// With nothing changed since, the third call uses the kept walk and
	// still protects the repository.
	if out := run(plan, "sh", "-c", "echo evil > "+hook("late")); out.ExitCode == 0 || exists(hook("late")) {
		t.Errorf("third call: the hook was planted (exit %d)", out.ExitCode)
	}
	wantWalks(t, c, 1, "after an unchanged call")
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

// TestSessionWalkCatchesARepositoryMadeDeepInTmpWithoutWalkingAgain is a
// session's kept walk with /tmp a writable root, as the engine gives it:
// between two sandboxed calls a temporary directory goes away, a stub is
// made and removed (what every call does) and a repository is made deep
// in /tmp on the host. The second call must not be able to set its
// core.fsmonitor, and the kept walk must be brought up to date from its
// events, not walked again (which is what a session paid per call with a
// large /tmp). Run with /tmp as it is, and with /tmp past the walk's bound
// (a fill made here), so that the kept walk is cut short: the repository
// is then found, or lies in the part the walk did not reach, which is
// read-only; either way the write fails.
func TestSessionWalkCatchesARepositoryMadeDeepInTmpWithoutWalkingAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	if !strings.HasPrefix(os.TempDir(), "/tmp") {
		t.Skipf("the test's temporary directories are not under /tmp (%s)", os.TempDir())
	}
	for _, tc := range []struct {
		name string
		fill int // directories made in /tmp before the first call
	}{
		{name: "/tmp as it is"},
		{name: "/tmp past the walk's bound", fill: gitwalk.MaxEntries / 3},
	} {
		for _, r := range walkRunners(t) {
			if r.userNS {
				continue // the same walk; the runners differ in how the plan is applied
			}
			t.Run(tc.name+"/"+r.name, func(t *testing.T) {
				if tc.fill > 0 {
					fill := t.TempDir()
					for i := range tc.fill {
						mkdirs(t, filepath.Join(fill, strconv.Itoa(i)))
					}
				}
				ws, scratch := t.TempDir(), t.TempDir()
				mkdirs(t, filepath.Join(scratch, "build", "obj"))
				roots := []string{ws, "/tmp"}
				plan := wwPlan(ws)
				plan.WritableRoots = roots
				caps := Probe()
				walks := &gitwalk.Cache{}
				t.Cleanup(func() { _ = walks.Close() })
				call := func(p events.SandboxPlan, argv ...string) events.ExecOutcome {
					t.Helper()
					out, err := r.run(context.Background(), Request{Argv: argv, Cwd: ws, Plan: p, Caps: &caps, GitWalks: walks, Timeout: time.Minute})
					if err != nil {
						t.Fatalf("%v: %v", argv, err)
					}
					return out
				}
				if out := call(plan, "true"); out.ExitCode != 0 || walks.Walks() != 1 {
					t.Fatalf("first call: exit %d, walks %d", out.ExitCode, walks.Walks())
				}
				// Between the calls, on the host.
				if err := os.RemoveAll(filepath.Join(scratch, "build")); err != nil {
					t.Fatal(err)
				}
				mkdirs(t, filepath.Join(scratch, ".agents"))
				if err := os.Remove(filepath.Join(scratch, ".agents")); err != nil {
					t.Fatal(err)
				}
				dotGit := filepath.Join(scratch, "deep", "a", "b", "c", "d", "proj", ".git")
				mkdirs(t, dotGit)
				config := filepath.Join(dotGit, "config")
				writeFile(t, config, "[core]\n")
				attack := `printf '[core]\n\tfsmonitor = "touch /tmp/pwned"\n' >> "$1"`
				// Unsandboxed, the attack works.
				control := filepath.Join(t.TempDir(), "control")
				writeFile(t, control, "[core]\n")
				if out := call(events.SandboxPlan{Mode: ModeNone}, "sh", "-c", attack, "sh", control); out.ExitCode != 0 || !strings.Contains(readFile(t, control), "fsmonitor") {
					t.Fatalf("unsandboxed, the write to %s failed: exit %d %s", control, out.ExitCode, out.Stderr)
				}
				out := call(plan, "sh", "-c", attack, "sh", config)
				if got := readFile(t, config); got != "[core]\n" {
					t.Fatalf("the repository's config was written through the sandbox (exit %d, layers %v): %q", out.ExitCode, out.Layers, got)
				}
				if out.ExitCode == 0 {
					t.Errorf("the write reported success: %+v", out)
				}
				wantWalks(t, walks, 1, "the kept walk brought up to date, not /tmp walked again")
				set := gitwalk.Find(roots, ws, walks)
				switch {
				case slices.Contains(set.Found, dotGit):
					t.Logf("found by the kept walk's events (complete %t)", set.Complete)
				case events.WithinAny(dotGit, set.Unseen):
					t.Logf("in the part the cut walk did not reach: read-only")
				default:
					t.Errorf("%s is neither found nor unseen: %+v", dotGit, set)
				}
				// The workspace the walk looked at first stays writable.
				if out := call(plan, "sh", "-c", "echo ok > seen.txt"); out.ExitCode != 0 {
					t.Errorf("a write to the workspace failed: exit %d: %s", out.ExitCode, out.Stderr)
				}
			})
		}
	}
}

// wantWalks fails t unless c did want whole walks. More are allowed only
// for a reason of the host's, which a shared machine gives (other tests
// churning /tmp past inotify's queue, using up its instances or watches,
// or mounting): what the cache must never do is walk again for a change
// it could have applied.
func wantWalks(t *testing.T, c *gitwalk.Cache, want int, what string) {
	t.Helper()
	got, why := c.Walks(), c.LastRewalk()
	if got == want {
		return
	}
	for _, host := range []string{"overflowed", "inotify", "mount table", "more events queued"} {
		if got > want && strings.Contains(why, host) {
			t.Logf("walks = %d, want %d (%s): walked again for a reason of the host's: %s", got, want, what, why)
			return
		}
	}
	t.Errorf("walks = %d, want %d (%s); the last walk again was because: %q", got, want, what, why)
}
