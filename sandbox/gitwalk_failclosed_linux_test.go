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

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/sandbox/internal/initc"
	"github.com/docket-engine/docket/sandbox/layers"
)

// The walk's budget is the attacker's (issue 26): one sandboxed call that
// makes a few thousand directories spends the walk's entry bound, and at
// the next call a repository the user already had was not found, so its
// .git was writable. These run that attack through the real sandbox, for
// a per-call walk, a session's kept walk (its event queue overflowed) and
// a repository under /tmp, and check the rule that defeats it: no part of
// a writable root is writable unless the walk looked at it.

// fillDirs is the attack's first call: n empty directories in dir/a.
func fillDirs(n int) []string {
	return []string{"sh", "-c", "mkdir -p a && cd a && seq 1 " + strconv.Itoa(n) + " | xargs mkdir"}
}

// walkRunner is one way a command reaches the sandbox.
type walkRunner struct {
	name   string
	run    func(context.Context, Request) (events.ExecOutcome, error)
	userNS bool // through the user namespace setup unprivileged users get
}

func walkRunners(t *testing.T) []walkRunner {
	caps := Probe()
	if err := caps.Check(events.SandboxPlan{Mode: ModeWorkspaceWrite}); err != nil {
		t.Skip(err)
	}
	if !caps.UserNamespaces && !caps.Root {
		t.Skip("protected paths need a mount namespace")
	}
	runners := []walkRunner{{name: "per-call helper", run: Run}}
	if caps.Root && caps.UserNamespaces && !raceEnabled {
		runners = append(runners, walkRunner{name: "per-call helper in a user namespace", run: Run, userNS: true})
	}
	if caps.Root && caps.LandlockABI >= 1 && caps.Seccomp && initc.CanSpawn {
		_, run := viaServers(t)
		runners = append(runners, walkRunner{name: "session server", run: run})
	}
	return runners
}

// wwPlan is a workspace-write plan for roots, with the subpaths the
// policy protects under each.
func wwPlan(roots ...string) events.SandboxPlan {
	p := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: roots}
	for _, r := range roots {
		for _, n := range []string{".git", ".docket", ".agents"} {
			p.ReadOnlySubpaths = append(p.ReadOnlySubpaths, filepath.Join(r, n))
		}
	}
	return p
}

func TestGitWalkFailsClosedWhenItsBudgetIsSpent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	tmpIsSlashTmp := strings.HasPrefix(os.TempDir(), "/tmp")
	for _, tc := range []struct {
		name string
		// setUp makes the user's repository (returning the file the
		// attack writes and what it writes) and the roots.
		setUp func(t *testing.T, ws string) (roots []string, target string)
		fill  int  // directories the first call makes in the workspace
		kept  bool // a session's kept walk, made before the fill
	}{
		{name: "per-call walk: a nested repository's hook", fill: 3600,
			setUp: func(t *testing.T, ws string) ([]string, string) {
				// Deeper than the fill: breadth first, the walk reads
				// every filled directory before it gets there.
				repo := filepath.Join(ws, "zz", "y", "x", "w", "repo")
				mkdirs(t, filepath.Join(repo, ".git", "hooks"))
				return []string{ws}, filepath.Join(repo, ".git", "hooks", "pre-commit")
			}},
		{name: "kept walk after its event queue overflowed: a nested repository's hook", fill: 17000, kept: true,
			setUp: func(t *testing.T, ws string) ([]string, string) {
				repo := filepath.Join(ws, "zz", "y", "x", "w", "repo")
				mkdirs(t, filepath.Join(repo, ".git", "hooks"))
				return []string{ws}, filepath.Join(repo, ".git", "hooks", "pre-commit")
			}},
		{name: "a repository under /tmp: core.fsmonitor", fill: 3600,
			setUp: func(t *testing.T, ws string) ([]string, string) {
				if !tmpIsSlashTmp {
					t.Skipf("the test's temporary directories are not under /tmp (%s)", os.TempDir())
				}
				repo := filepath.Join(t.TempDir(), "proj")
				mkdirs(t, filepath.Join(repo, ".git"))
				writeFile(t, filepath.Join(repo, ".git", "config"), "[core]\n")
				// The workspace is walked first, then /tmp, which holds it.
				return []string{ws, "/tmp"}, filepath.Join(repo, ".git", "config")
			}},
	} {
		for _, r := range walkRunners(t) {
			t.Run(tc.name+"/"+r.name, func(t *testing.T) {
				ws := t.TempDir()
				roots, target := tc.setUp(t, ws)
				// Made before the walk is kept, so that the kept walk
				// watches it and the fill's events overflow its queue.
				mkdirs(t, filepath.Join(ws, "a"))
				// The plan protects the workspace's .git, .docket and
				// .agents; not those of a shared /tmp, whose stubs every
				// other sandboxed process on the machine makes and removes
				// too: the walk is what this test is about.
				plan := wwPlan(roots[0])
				plan.WritableRoots = roots
				caps := Probe()
				caps.Root = caps.Root && !r.userNS
				var walks *gitwalk.Cache
				if tc.kept {
					walks = &gitwalk.Cache{}
					t.Cleanup(func() { _ = walks.Close() })
				}
				call := func(p events.SandboxPlan, argv ...string) events.ExecOutcome {
					t.Helper()
					out, err := r.run(context.Background(), Request{Argv: argv, Cwd: ws, Plan: p, Caps: &caps, GitWalks: walks, Timeout: 2 * time.Minute})
					if err != nil {
						t.Fatalf("%v: %v", argv, err)
					}
					return out
				}
				if tc.kept {
					if out := call(plan, "true"); out.ExitCode != 0 || walks.Walks() != 1 {
						t.Fatalf("first call: exit %d, walks %d", out.ExitCode, walks.Walks())
					}
				}
				if out := call(plan, fillDirs(tc.fill)...); out.ExitCode != 0 {
					t.Fatalf("the fill failed: exit %d: %s", out.ExitCode, out.Stderr)
				}
				// The attack's premise: the walk no longer reaches the
				// repository, so finding it cannot be what protects it.
				cwdRoot := gitwalk.EnclosingRoot(ws, roots)
				if fresh := gitwalk.Find(roots, cwdRoot, nil); fresh.Complete || slices.Contains(fresh.Found, filepath.Dir(filepath.Dir(target))) || slices.Contains(fresh.Found, filepath.Dir(target)) {
					t.Fatalf("the fill did not spend the walk's budget: %+v", fresh)
				}
				attack := []string{"sh", "-c", `printf '[core]\n\tfsmonitor = "touch /tmp/pwned"\n' >> "$1" && echo ok > ws-write`, "sh", target}
				// Unsandboxed, the attack works.
				control := filepath.Join(t.TempDir(), "control")
				writeFile(t, control, "[core]\n")
				if out := call(events.SandboxPlan{Mode: ModeNone}, "sh", "-c", attack[2], "sh", control); out.ExitCode != 0 || !strings.Contains(readFile(t, control), "fsmonitor") {
					t.Fatalf("unsandboxed, the write to %s failed: exit %d %s", control, out.ExitCode, out.Stderr)
				}
				if walks != nil {
					t.Logf("walks %d", walks.Walks())
				}
				before := readFile(t, target)
				out := call(plan, attack...)
				if got := readFile(t, target); got != before {
					t.Fatalf("the repository's %s was written through the sandbox (exit %d): %q", filepath.Base(target), out.ExitCode, got)
				}
				if out.ExitCode == 0 {
					t.Errorf("the write reported success: %+v", out)
				}
				if !slices.Contains(out.Layers, layers.GitDirsPartial) {
					t.Errorf("layers %v, want %s", out.Layers, layers.GitDirsPartial)
				}
				// What the walk did look at stays writable: the
				// workspace's own top (in /tmp's case, a nested root
				// below the read-only /tmp).
				if out := call(plan, "sh", "-c", "echo ok > seen.txt"); out.ExitCode != 0 {
					t.Errorf("a write to the workspace the walk looked at failed: exit %d: %s", out.ExitCode, out.Stderr)
				}
				// Once the fill is gone, the walk sees everything again and
				// nothing of the last calls' read-only binds stays (the
				// session server gives each command a mount table of its own).
				if err := os.RemoveAll(filepath.Join(ws, "a")); err != nil {
					t.Fatal(err)
				}
				mkdirs(t, filepath.Join(ws, "a"))
				if out := call(plan, "sh", "-c", "echo ok > a/x"); out.ExitCode != 0 {
					t.Errorf("after the fill was removed: exit %d, layers %v: %s", out.ExitCode, out.Layers, out.Stderr)
				}
			})
		}
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func mkdirs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
