package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/sandbox/layers"
)

// What must keep working under the process isolation of issue 12 (no
// capabilities as root, own IPC/UTS/PID namespaces, only fds 0-2): each
// case runs a real workload in every variant it lists and checks its
// output. Ptys, socketpair and 200 children are in escape_fs_linux_test.go.

type mustWorkCase struct {
	name string
	// needs names a program the workload itself needs.
	needs    string
	variants []string
	setup    func(t *testing.T, w string)
	script   string
	want     string
}

func mustWorkCases() []mustWorkCase {
	all := []string{vRO, vRONet, vWW, vWWNet}
	writers := []string{vWW, vWWNet}
	return []mustWorkCase{
		{name: "fifo between two processes", variants: writers,
			script: `mkfifo f && { echo through-the-fifo > f & } && cat f && wait`, want: "through-the-fifo"},
		{name: "build and run a C program", needs: "cc", variants: writers,
			setup: func(t *testing.T, w string) {
				src := "#include <stdio.h>\nint main(void) { printf(\"built %d\\n\", 6 * 7); return 0; }\n"
				if err := os.WriteFile(filepath.Join(w, "hello.c"), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			script: `cc -o hello hello.c && ./hello`, want: "built 42"},
		{name: "64 threads", variants: all,
			script: `"$DOCKET_TEST_BINARY" ` + attackArg + ` threads 64`, want: "threads"},
		{name: "background jobs", variants: all,
			script: `{ sleep 0.1; echo background-done; } & echo foreground; wait`, want: "foreground\nbackground-done"},
		{name: "$TMPDIR is writable", variants: writers,
			script: `f=$(mktemp) && case "$f" in "$TMPDIR"/*) ;; *) echo "mktemp gave $f"; exit 1;; esac && echo in-tmp > "$f" && cat "$f"`, want: "in-tmp"},
		{name: "git log and diff in the workspace", needs: "git", variants: all,
			setup: func(t *testing.T, w string) {
				gitRepo(t, w)
				if err := os.WriteFile(filepath.Join(w, "file.txt"), []byte("changed\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			script: `git log --oneline && git diff --stat`, want: "first\n file.txt | 2 +-"},
		{name: "git commit as root without capabilities", needs: "git", variants: writers,
			// The workspace's own .git is protected; a git directory given
			// as a writable root of its own is what a commit can use.
			setup: func(t *testing.T, w string) {
				gitRepo(t, w)
				if err := exec.Command("git", "clone", "-q", "--bare", w, filepath.Join(filepath.Dir(w), "tmp", "store")).Run(); err != nil {
					t.Fatal(err)
				}
			},
			script: `export GIT_DIR="$TMPDIR/store" GIT_WORK_TREE="$PWD" && git reset -q && echo more >> file.txt && git commit -qam second && git log --format=%s`,
			want:   "second\nfirst"},
	}
}

// gitRepo makes w a repository with one commit.
func gitRepo(t *testing.T, w string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "file.txt"}, {"commit", "-qm", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = w
		cmd.Env = append(os.Environ(), gitIdentity()...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
}

func gitIdentity() []string {
	return []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent"}
}

func TestWorkloadsStillWork(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	caps := Probe()
	for _, c := range mustWorkCases() {
		t.Run(c.name, func(t *testing.T) {
			if c.needs != "" {
				if _, err := exec.LookPath(c.needs); err != nil {
					t.Skipf("%s is not installed", c.needs)
				}
			}
			for _, v := range c.variants {
				f := newFixture(t)
				// The .git newFixture makes is a stub; the git cases make a real one.
				if err := os.RemoveAll(filepath.Join(f.W, ".git")); err != nil {
					t.Fatal(err)
				}
				tmp := filepath.Join(filepath.Dir(f.W), "tmp")
				if err := os.MkdirAll(tmp, 0o755); err != nil {
					t.Fatal(err)
				}
				if c.setup != nil {
					c.setup(t, f.W)
				}
				plan := f.plan(v)
				if plan.Mode == ModeWorkspaceWrite {
					plan.WritableRoots = append(plan.WritableRoots, tmp)
				}
				env := append(os.Environ(), "TMPDIR="+tmp, "DOCKET_TEST_BINARY="+testBinary(t))
				env = append(env, gitIdentity()...)
				cc := caps
				out, err := Run(context.Background(), Request{Argv: []string{"sh", "-c", c.script}, Cwd: f.W, Env: env,
					Plan: plan, Caps: &cc, Timeout: 2 * time.Minute})
				if err != nil {
					t.Fatalf("%s: Run: %v", v, err)
				}
				if out.ExitCode != 0 || !strings.Contains(out.Stdout, c.want) {
					t.Errorf("%s: exit %d, want %q in the output; layers %v\n%s", v, out.ExitCode, c.want, out.Layers, out.Output)
				}
				if caps.Root && !slices.Contains(out.Layers, layers.Caps) {
					t.Errorf("%s: ran with capabilities (layers %v): this proves nothing about their absence", v, out.Layers)
				}
			}
		})
	}
}
