package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
	"golang.org/x/sys/unix"
)

// The escape cases of the file system view (ptys, other repositories, the
// workspace's own mount), unix sockets and resource limits (issue 12, holes
// 5, 6, 9, 10), run through the same runner as escapeCases: unsandboxed
// first, to prove each attack works.

// tmpLike is a directory standing for /tmp: a writable root that holds the
// workspace wsIn (with a .git) and a repository repo (with a .git) whose
// subdirectory repo/ws can be given as a workspace of its own.
type tmpLike struct{ T, WS, Repo, RepoWS string }

func newTmpLike(t *testing.T, f *fixture) tmpLike {
	t.Helper()
	base := filepath.Join(filepath.Dir(f.W), "t")
	tl := tmpLike{T: base, WS: filepath.Join(base, "x", "ws"), Repo: filepath.Join(base, "repo")}
	tl.RepoWS = filepath.Join(tl.Repo, "ws")
	for _, d := range []string{filepath.Join(tl.WS, ".git", "hooks"), filepath.Join(tl.Repo, ".git", "hooks"), tl.RepoWS} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(tl.WS, ".git", "config"), filepath.Join(tl.Repo, ".git", "config")} {
		if err := os.WriteFile(p, []byte("[core]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tl
}

// withRoots makes a workspace-write plan's writable roots ws and T, with
// the protected subpaths the policy would list for them.
func withRoots(ws, tmp string) func(*fixture, string, events.SandboxPlan) events.SandboxPlan {
	return func(f *fixture, v string, p events.SandboxPlan) events.SandboxPlan {
		if p.Mode != ModeWorkspaceWrite {
			return p
		}
		p.WritableRoots = []string{ws, tmp}
		p.ReadOnlySubpaths = nil
		for _, r := range p.WritableRoots {
			for _, n := range []string{".git", ".docket", ".agents"} {
				p.ReadOnlySubpaths = append(p.ReadOnlySubpaths, filepath.Join(r, n))
			}
		}
		return p
	}
}

// withLimits sets resource limits on the sandboxed plans.
func withLimits(l events.ResourceLimits) func(*fixture, string, events.SandboxPlan) events.SandboxPlan {
	return func(f *fixture, v string, p events.SandboxPlan) events.SandboxPlan {
		if p.Sandboxed() {
			p.Limits = l
		}
		return p
	}
}

// hostPTY opens a pty pair of the host's devpts and returns its slave's
// path; the master reads what reaches it into f.received.
func (f *fixture) hostPTY(t *testing.T) string {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no host pty: %v", err)
	}
	m := os.NewFile(uintptr(fd), "ptmx")
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 256)
		for {
			k, err := m.Read(buf)
			if k > 0 && strings.Contains(string(buf[:k]), "pwned") {
				f.received.Add(1)
			}
			if err != nil {
				return
			}
		}
	}()
	return "/dev/pts/" + strconv.Itoa(n)
}

// listenUnix listens on a pathname unix socket and counts the lines it gets.
func (f *fixture) listenUnix(t *testing.T, path string) string {
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", path, err)
	}
	t.Cleanup(func() { l.Close(); os.Remove(path) })
	go f.countLines(l)
	return path
}

func fsEscapeCases() []escapeCase {
	onlyNone := []string{vNone}
	networked := []string{vNone, vRONet, vWWNet}
	all := variantNames[:]
	sandboxed := func(out events.ExecOutcome) bool { return out.Layers != nil }
	return []escapeCase{
		// Ptys: a private devpts, no host terminal.
		{name: "openpty works", works: all,
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "openpty") },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
		{name: "script(1) gets a tty", works: all, needs: "script",
			argv: func(t *testing.T, f *fixture) []string { return []string{"script", "-qc", "tty", "/dev/null"} },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool {
				return out.ExitCode == 0 && strings.Contains(out.Stdout, "/dev/pts/")
			}},
		{name: "python pty.spawn", works: all, needs: "python3",
			argv: func(t *testing.T, f *fixture) []string {
				return []string{"python3", "-c", "import pty, sys; sys.exit(pty.spawn(['tty']) >> 8)"}
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool {
				return out.ExitCode == 0 && strings.Contains(out.Stdout, "/dev/pts/")
			}},
		{name: "write to a host pty", works: onlyNone, needs: "root",
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "pty-write", f.hostPTY(t)) },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return f.waitReceived(out) }},
		// Other repositories under the writable roots.
		{name: "plant a hook in a nested repository", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				if err := os.MkdirAll(filepath.Join(f.W, "sub", ".git", "hooks"), 0o755); err != nil {
					t.Fatal(err)
				}
				return attackArgv(t, "write", filepath.Join(f.W, "sub", ".git", "hooks", "pre-commit"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(f.W, "sub", ".git", "hooks", "pre-commit"))
			}},
		{name: "redirect a nested worktree's gitdir file", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				gitdir := filepath.Join(f.W, "sub", "moduledir")
				if err := os.MkdirAll(filepath.Join(gitdir, "hooks"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(f.W, "sub", ".git"), []byte("gitdir: moduledir\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return attackArgv(t, "write", filepath.Join(gitdir, "hooks", "pre-commit"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(f.W, "sub", "moduledir", "hooks", "pre-commit"))
			}},
		{name: "append to the config of the repository around the workspace", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				tl := newTmpLike(t, f)
				return attackArgv(t, "append", filepath.Join(tl.Repo, ".git", "config"))
			},
			adjustPlan: func(f *fixture, v string, p events.SandboxPlan) events.SandboxPlan {
				tl := tmpLike{T: filepath.Join(filepath.Dir(f.W), "t")}
				return withRoots(filepath.Join(tl.T, "repo", "ws"), tl.T)(f, v, p)
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return fileHas(filepath.Join(filepath.Dir(f.W), "t", "repo", ".git", "config"), "pwned")
			}},
		{name: "rename a workspace under a writable root away and replant it", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				tl := newTmpLike(t, f)
				return attackArgv(t, "replant", tl.WS, tl.WS+"-old", filepath.Join(tl.WS, ".git", "hooks", "pre-commit"))
			},
			adjustPlan: func(f *fixture, v string, p events.SandboxPlan) events.SandboxPlan {
				T := filepath.Join(filepath.Dir(f.W), "t")
				return withRoots(filepath.Join(T, "x", "ws"), T)(f, v, p)
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(filepath.Dir(f.W), "t", "x", "ws", ".git", "hooks", "pre-commit"))
			}},
		{name: "rename the directory above a nested workspace and replant it", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				tl := newTmpLike(t, f)
				x := filepath.Dir(tl.WS)
				return attackArgv(t, "replant", x, x+"-old", filepath.Join(tl.WS, ".git", "hooks", "pre-commit"))
			},
			adjustPlan: func(f *fixture, v string, p events.SandboxPlan) events.SandboxPlan {
				T := filepath.Join(filepath.Dir(f.W), "t")
				return withRoots(filepath.Join(T, "x", "ws"), T)(f, v, p)
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(filepath.Dir(f.W), "t", "x", "ws", ".git", "hooks", "pre-commit"))
			}},
		{name: "plant a repository above a nested workspace", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				tl := newTmpLike(t, f)
				return attackArgv(t, "mkdir", filepath.Join(filepath.Dir(tl.WS), ".git", "hooks"))
			},
			adjustPlan: func(f *fixture, v string, p events.SandboxPlan) events.SandboxPlan {
				T := filepath.Join(filepath.Dir(f.W), "t")
				return withRoots(filepath.Join(T, "x", "ws"), T)(f, v, p)
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(filepath.Dir(f.W), "t", "x", ".git", "hooks"))
			}},
		{name: "work in a nested workspace still works", works: []string{vNone, vWW, vWWNet},
			argv: func(t *testing.T, f *fixture) []string {
				tl := newTmpLike(t, f)
				// mv, not rename(2): each root is a mount of its own, so
				// a rename between roots is EXDEV and mv copies instead.
				return []string{"mv", filepath.Join(tl.WS, ".git", "config"), filepath.Join(tl.T, "moved")}
			},
			adjustPlan: func(f *fixture, v string, p events.SandboxPlan) events.SandboxPlan {
				T := filepath.Join(filepath.Dir(f.W), "t")
				// Here the nested workspace's .git is not protected: the
				// move out of one root into the other must still work.
				p = withRoots(filepath.Join(T, "x", "ws"), T)(f, v, p)
				p.ReadOnlySubpaths = nil
				return p
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(filepath.Dir(f.W), "t", "moved"))
			}},
		// $DOCKET_HOME under a writable root, protected like .git.
		{name: "rewrite $DOCKET_HOME/config.toml under a writable root", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				home := filepath.Join(f.W, "home", ".docket")
				if err := os.MkdirAll(filepath.Join(home, "rules"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("approval_policy = \"untrusted\"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return attackArgv(t, "append", filepath.Join(home, "config.toml"))
			},
			adjustPlan: func(f *fixture, v string, p events.SandboxPlan) events.SandboxPlan {
				if p.Mode == ModeWorkspaceWrite {
					p.ReadOnlySubpaths = append(p.ReadOnlySubpaths, filepath.Join(f.W, "home", ".docket"))
				}
				return p
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return fileHas(filepath.Join(f.W, "home", ".docket", "config.toml"), "pwned")
			}},
		// Unix sockets bound outside the sandbox.
		{name: "connect to a unix socket outside the roots", works: networked,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "unix-connect", f.listenUnix(t, filepath.Join(f.O, "agent.sock")))
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return f.waitReceived(out) }},
		{name: "connect to a unix socket in /run", works: networked, needs: "root",
			argv: func(t *testing.T, f *fixture) []string {
				dir, err := os.MkdirTemp("/run", "docket-escape-")
				if err != nil {
					t.Skipf("no writable /run: %v", err)
				}
				t.Cleanup(func() { os.RemoveAll(dir) })
				return attackArgv(t, "unix-connect", f.listenUnix(t, filepath.Join(dir, "docker.sock")))
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return f.waitReceived(out) }},
		{name: "connect to a host process's unix socket inside the workspace", works: networked,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "unix-connect", f.listenUnix(t, filepath.Join(f.W, "dev.sock")))
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return f.waitReceived(out) }},
		{name: "SSH_AUTH_SOCK reaches the command", works: networked,
			argv: func(t *testing.T, f *fixture) []string {
				t.Setenv("SSH_AUTH_SOCK", filepath.Join(f.O, "agent.sock"))
				return attackArgv(t, "getenv", "SSH_AUTH_SOCK")
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
		{name: "socketpair still works", works: all,
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "socketpair") },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
		// Resource limits.
		{name: "fork bomb past the process limit", works: onlyNone,
			adjustPlan: withLimits(events.ResourceLimits{MaxProcesses: 64}),
			argv:       func(t *testing.T, f *fixture) []string { return attackArgv(t, "fork-many", "200") },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool {
				return out.ExitCode == 0 && strings.Contains(out.Stdout, "children 200")
			}},
		{name: "allocate past the memory limit", works: onlyNone, needs: "memcg",
			adjustPlan: withLimits(events.ResourceLimits{MaxMemoryMB: 64}),
			argv:       func(t *testing.T, f *fixture) []string { return attackArgv(t, "alloc", "128") },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool {
				if sandboxed(out) && out.ExitCode != 0 {
					if out.Killed != KilledMemory {
						t.Errorf("Killed = %q, want %q (signal %q)", out.Killed, KilledMemory, out.Signal)
					}
					if ev := policy.ClassifyDenial(out, f.plan(vWW), ""); ev != nil {
						t.Errorf("a memory-limit kill classified as a denial: %+v", ev)
					}
				}
				return out.ExitCode == 0
			}},
		{name: "write a file past the size limit", works: onlyNone,
			adjustPlan: withLimits(events.ResourceLimits{MaxFileSizeMB: 1}),
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "bigfile", filepath.Join(f.W, "big"), "2")
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool {
				if sandboxed(out) && out.Stdout == "" && strings.Contains(out.Stderr, filepath.Join(f.W, "big")) &&
					!strings.Contains(out.Stderr, "file too large") && !strings.Contains(out.Stderr, "read-only") {
					t.Errorf("want EFBIG: %q", out.Stderr)
				}
				st, err := os.Stat(filepath.Join(f.W, "big"))
				return err == nil && st.Size() >= 2<<20
			}},
		{name: "spin past the CPU limit", works: onlyNone,
			adjustPlan: withLimits(events.ResourceLimits{MaxCPUSeconds: 1}),
			argv:       func(t *testing.T, f *fixture) []string { return attackArgv(t, "spin", "3") },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool {
				if sandboxed(out) && out.ExitCode != 0 && out.Killed != KilledCPU {
					t.Errorf("Killed = %q, want %q (signal %q)", out.Killed, KilledCPU, out.Signal)
				}
				return out.ExitCode == 0
			}},
		{name: "64 threads under the default limits", works: all,
			adjustPlan: withLimits(DefaultLimits()),
			argv:       func(t *testing.T, f *fixture) []string { return attackArgv(t, "threads", "64") },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool {
				var n int
				_, err := fmt.Sscanf(out.Stdout, "threads %d", &n)
				return out.ExitCode == 0 && err == nil && n >= 64
			}},
		{name: "a C build under the default limits", works: []string{vNone, vWW, vWWNet}, needs: "cc",
			adjustPlan: withLimits(DefaultLimits()),
			argv: func(t *testing.T, f *fixture) []string {
				src := filepath.Join(f.W, "hello.c")
				if err := os.WriteFile(src, []byte("#include <stdio.h>\nint main(void){puts(\"hello\");return 0;}\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				bin := filepath.Join(f.W, "hello")
				return []string{"sh", "-c", `cc -o "$2" "$1" && "$2"`, "sh", src, bin}
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool {
				return out.ExitCode == 0 && strings.Contains(out.Stdout, "hello")
			}},
		{name: "200 children under the default limits", works: all,
			adjustPlan: withLimits(DefaultLimits()),
			argv:       func(t *testing.T, f *fixture) []string { return attackArgv(t, "fork-many", "200") },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool {
				return out.ExitCode == 0 && strings.Contains(out.Stdout, "children 200")
			}},
	}
}

// fsNeed extends missingNeed with what these cases need.
func fsNeed(need string, caps Capabilities) string {
	switch need {
	case "script", "python3", "cc":
		if _, err := exec.LookPath(need); err != nil {
			return need + " is not installed"
		}
	case "memcg":
		if !caps.Root {
			return "the memory limit needs a writable cgroup (root here)"
		}
	}
	return missingNeed(need, caps)
}

func TestEscapeSuiteFS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	runFSSuite(t, Run)
}

// runFSSuite runs the file-system cases with run.
func runFSSuite(t *testing.T, run func(context.Context, Request) (events.ExecOutcome, error)) {
	caps := Probe()
	if caps.LandlockABI < 1 || !caps.Seccomp {
		t.Fatalf("the escape suite needs Landlock and seccomp: %+v", caps)
	}
	var cases []escapeCase
	for _, c := range fsEscapeCases() {
		if reason := fsNeed(c.needs, caps); reason != "" {
			t.Run(c.name, func(t *testing.T) { t.Skip(reason) })
			continue
		}
		c.needs = ""
		cases = append(cases, c)
	}
	runCases(t, cases, "", caps, caps, run)
}

// TestEscapeSuiteFSUserNamespace runs the same cases through the user
// namespace setup that unprivileged users get.
func TestEscapeSuiteFSUserNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	if raceEnabled {
		t.Skip("same code as TestEscapeSuiteFS; skipped to keep -race runs short")
	}
	needs := Probe()
	if !needs.UserNamespaces {
		t.Skip("no user namespaces on this machine")
	}
	caps := needs
	caps.Root = false
	var cases []escapeCase
	for _, c := range fsEscapeCases() {
		if reason := fsNeed(c.needs, needs); reason != "" {
			t.Run(c.name, func(t *testing.T) { t.Skip(reason) })
			continue
		}
		c.needs = ""
		cases = append(cases, c)
	}
	runCases(t, cases, "", caps, needs, Run)
}
