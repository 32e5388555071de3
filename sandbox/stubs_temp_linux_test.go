package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/stubs"
)

// replaceGit moves the .git at $T aside and puts a hooks file in a fresh
// one: what a command would do to run code on the user's next git call.
const replaceGit = `mv "$T/.git" "$T/old" && mkdir -p "$T/.git/hooks" && echo evil > "$T/.git/hooks/pre-commit"`

// TestStubsOfTheTemporaryRootsKeptBetweenCalls: with Stubs limited to a
// temporary root (StubsIn), the stubs directly in it outlive each call and
// stay read-only to later calls, while the workspace's are removed after
// every call; Close removes the kept ones. Both ways a call is launched
// (a helper per call, the session's servers) use the same keeper.
func TestStubsOfTheTemporaryRootsKeptBetweenCalls(t *testing.T) {
	names := []string{".git", ".docket", ".agents", ".codex"}
	launchers := []struct {
		name string
		make func(t *testing.T) Launcher
	}{
		{"per call", func(*testing.T) Launcher { return nil }},
		{"servers", func(t *testing.T) Launcher {
			s := &Servers{Binary: testBinary(t)}
			t.Cleanup(func() { _ = s.Close() })
			return s
		}},
	}
	for _, l := range launchers {
		t.Run(l.name, func(t *testing.T) {
			w, tmp := t.TempDir(), t.TempDir()
			var protected []string
			for _, n := range names {
				protected = append(protected, filepath.Join(w, n), filepath.Join(tmp, n))
			}
			plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w, tmp}, ReadOnlySubpaths: protected}
			keeper := &stubs.Keeper{}
			t.Cleanup(func() { _ = keeper.Close() })
			launcher := l.make(t)
			run := func(script string) events.ExecOutcome {
				t.Helper()
				out, err := Run(context.Background(), Request{Argv: []string{"bash", "-c", script}, Cwd: w, Env: []string{"T=" + tmp, "PATH=/usr/bin:/bin"},
					Plan: plan, Timeout: time.Minute, Stubs: keeper, StubsIn: []string{tmp}, Launcher: launcher, HelperPath: testBinary(t)})
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			kept := func(when string) {
				t.Helper()
				for _, n := range names {
					fi, err := os.Lstat(filepath.Join(tmp, n))
					if err != nil || !fi.IsDir() || fi.Mode().Perm() != stubs.Mode {
						t.Errorf("%s: the temporary root's %s is not a kept stub: %v %v", when, n, fi, err)
					}
					if exists(filepath.Join(w, n)) {
						t.Errorf("%s: the workspace's stub %s outlived the call", when, n)
					}
				}
			}
			if out := run("true"); out.ExitCode != 0 {
				t.Fatalf("first call: exit %d: %s", out.ExitCode, out.Stderr)
			}
			kept("after the first call")
			for i := 2; i <= 3; i++ {
				if out := run(replaceGit); out.ExitCode == 0 {
					t.Fatalf("call %d replaced the kept %s/.git", i, tmp)
				}
				if exists(filepath.Join(tmp, "old")) || exists(filepath.Join(tmp, ".git", "hooks")) {
					t.Fatalf("call %d got past the kept stub", i)
				}
				kept("after an attack")
			}
			// Someone on the host removes a kept stub between calls: the
			// next call holds a new one, as read-only.
			if err := os.Remove(filepath.Join(tmp, ".git")); err != nil {
				t.Fatal(err)
			}
			if out := run(replaceGit); out.ExitCode == 0 || exists(filepath.Join(tmp, ".git", "hooks")) {
				t.Fatal("after the host removed the stub, a call replaced .git")
			}
			kept("after the host removed one")
			if err := keeper.Close(); err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if exists(filepath.Join(tmp, n)) {
					t.Errorf("Close left %s in the temporary root", n)
				}
			}
		})
	}
}

// TestReplacingAGitStubWorksUnsandboxed shows replaceGit does what it says
// on an empty 0555 .git when no sandbox binds it: the test above fails for
// a reason.
func TestReplacingAGitStubWorksUnsandboxed(t *testing.T) {
	tmp := t.TempDir()
	if err := os.Mkdir(filepath.Join(tmp, ".git"), stubs.Mode); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, Request{Argv: []string{"bash", "-c", replaceGit}, Cwd: tmp, Env: []string{"T=" + tmp, "PATH=/usr/bin:/bin"},
		Plan: events.SandboxPlan{Mode: ModeNone}})
	if out.ExitCode != 0 || !fileHas(filepath.Join(tmp, ".git", "hooks", "pre-commit"), "evil") {
		t.Fatalf("unsandboxed, the replacement failed: exit %d %s", out.ExitCode, out.Stderr)
	}
	_ = os.Chmod(filepath.Join(tmp, "old"), 0o755) // for t.TempDir's cleanup
}
