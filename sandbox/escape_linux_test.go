package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
)

// Plan variants every escape case runs under. "none" proves the attack
// works without the sandbox, so a case that is blocked for the wrong reason
// (a broken attack) fails instead of passing.
const (
	vNone  = "none"
	vRO    = "read-only"
	vRONet = "read-only+network"
	vWW    = "workspace-write"
	vWWNet = "workspace-write+network"
)

var variantNames = [...]string{vNone, vRO, vRONet, vWW, vWWNet}

// fixture is the world one run attacks: a workspace W (the writable root
// in workspace-write, with a .git) and a directory O outside every root.
type fixture struct {
	W, O string
	// victim is a process outside the sandbox, for ptrace and kill.
	victim *exec.Cmd
	// mem is memory of this (parent) process for the /proc/PID/mem attack.
	mem *[64]byte
	// received counts what the test's listeners got.
	received atomic.Int32
	token    string
}

func (f *fixture) plan(variant string) events.SandboxPlan {
	switch variant {
	case vNone:
		return events.SandboxPlan{Mode: ModeNone}
	case vRO, vRONet:
		return events.SandboxPlan{Mode: ModeReadOnly, Network: variant == vRONet}
	}
	return events.SandboxPlan{
		Mode:             ModeWorkspaceWrite,
		WritableRoots:    []string{f.W},
		ReadOnlySubpaths: policy.ProtectedSubpaths([]string{f.W}, nil),
		Network:          variant == vWWNet,
	}
}

// escapeCase is one attack. works lists the variants in which it must
// succeed (always including none); in every other variant it must fail.
type escapeCase struct {
	name string
	// needs skips the case when the machine lacks something the attack
	// itself needs ("root", "io_uring"); the none run would fail otherwise.
	needs string
	works []string
	// argv builds the attack; effect checks on the host whether it worked.
	argv   func(t *testing.T, f *fixture) []string
	effect func(t *testing.T, f *fixture, out events.ExecOutcome) bool
	// denial, when set, is the Classify reason a blocked sandboxed run must get.
	denial  string
	timeout time.Duration
	// adjustPlan, when set, changes the variant's plan (extra roots, limits).
	adjustPlan func(f *fixture, variant string, p events.SandboxPlan) events.SandboxPlan
	// groupOnly runs the unsandboxed variant with its process group as the
	// only way to find its processes, as before proctree: an unsandboxed
	// command's cgroup now kills what these attacks leave behind
	// (TestUnsandboxedCallKillsASetsidDaemon).
	groupOnly bool
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func fileHas(p, s string) bool {
	b, err := os.ReadFile(p)
	return err == nil && strings.Contains(string(b), s)
}

func escapeCases() []escapeCase {
	onlyNone := []string{vNone}
	writers := []string{vNone, vWW, vWWNet}
	networked := []string{vNone, vRONet, vWWNet}
	all := variantNames[:]
	return []escapeCase{
		// Writes outside the writable roots.
		{name: "write new file outside the roots", works: onlyNone, denial: policy.DenialWriteDenied,
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "write", filepath.Join(f.O, "pwned")) },
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool { return exists(filepath.Join(f.O, "pwned")) }},
		{name: "append to a file outside the roots", works: onlyNone, denial: policy.DenialWriteDenied,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "append", filepath.Join(f.O, "target.txt"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return fileHas(filepath.Join(f.O, "target.txt"), "pwned")
			}},
		{name: "mkdir outside the roots", works: onlyNone, denial: policy.DenialWriteDenied,
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "mkdir", filepath.Join(f.O, "newdir")) },
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool { return exists(filepath.Join(f.O, "newdir")) }},
		{name: "remove a file outside the roots", works: onlyNone, denial: policy.DenialWriteDenied,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "remove", filepath.Join(f.O, "target.txt"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return !exists(filepath.Join(f.O, "target.txt"))
			}},
		{name: "chmod a file outside the roots", works: onlyNone, denial: policy.DenialWriteDenied,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "chmod", filepath.Join(f.O, "target.txt"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				st, err := os.Stat(filepath.Join(f.O, "target.txt"))
				return err == nil && st.Mode().Perm() == 0o777
			}},
		{name: "write /dev/shm", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "write", "/dev/shm/docket-escape-"+f.token)
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				p := "/dev/shm/docket-escape-" + f.token
				defer os.Remove(p)
				return exists(p)
			}},
		// Writes inside the root, and into its protected subpaths.
		{name: "write a new file in the workspace", works: writers, denial: policy.DenialWriteDenied,
			argv: func(t *testing.T, f *fixture) []string { return attackArgv(t, "write", filepath.Join(f.W, "new.txt")) },
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(f.W, "new.txt"))
			}},
		{name: "append to .git/config", works: onlyNone, denial: policy.DenialReadOnlyPath,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "append", filepath.Join(f.W, ".git", "config"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return fileHas(filepath.Join(f.W, ".git", "config"), "pwned")
			}},
		{name: "plant a .git hook", works: onlyNone, denial: policy.DenialReadOnlyPath,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "write", filepath.Join(f.W, ".git", "hooks", "pre-commit"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(f.W, ".git", "hooks", "pre-commit"))
			}},
		{name: "remove .git", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string { return attackArgv(t, "remove", filepath.Join(f.W, ".git")) },
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return !exists(filepath.Join(f.W, ".git", "config"))
			}},
		{name: "rename .git away", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "rename", filepath.Join(f.W, ".git"), filepath.Join(f.W, "git-moved"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(f.W, "git-moved"))
			}},
		{name: "replace .git/config by a rename", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				src := filepath.Join(f.W, "evil-config")
				if err := os.WriteFile(src, []byte("[core]\n\tfsmonitor = evil\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return attackArgv(t, "rename", src, filepath.Join(f.W, ".git", "config"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return fileHas(filepath.Join(f.W, ".git", "config"), "fsmonitor")
			}},
		{name: "create a missing .docket with rules", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "mkdir", filepath.Join(f.W, ".docket", "rules"))
			},
			// The stub must be gone afterwards too.
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(f.W, ".docket"))
			}},
		{name: "create a missing .agents as a file", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string { return attackArgv(t, "write", filepath.Join(f.W, ".agents")) },
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(f.W, ".agents"))
			}},
		// A Codex project's config and rules (issue 30): a command that
		// rewrote them would set the next session's policy.
		{name: "write .codex/config.toml in the workspace", works: onlyNone, denial: policy.DenialReadOnlyPath,
			argv: func(t *testing.T, f *fixture) []string {
				if err := os.Mkdir(filepath.Join(f.W, ".codex"), 0o755); err != nil {
					t.Fatal(err)
				}
				return attackArgv(t, "write", filepath.Join(f.W, ".codex", "config.toml"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(f.W, ".codex", "config.toml"))
			}},
		{name: "create a missing .codex with rules", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "mkdir", filepath.Join(f.W, ".codex", "rules"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(f.W, ".codex"))
			}},
		{name: "create .git where there is none", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				if err := os.RemoveAll(filepath.Join(f.W, ".git")); err != nil {
					t.Fatal(err)
				}
				return attackArgv(t, "mkdir", filepath.Join(f.W, ".git", "hooks"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool { return exists(filepath.Join(f.W, ".git")) }},
		// Links and renames that lead out of the root.
		{name: "write through a symlink out of the root", works: onlyNone, denial: policy.DenialWriteDenied,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "symlink-write", filepath.Join(f.O, "target.txt"), filepath.Join(f.W, "link"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return fileHas(filepath.Join(f.O, "target.txt"), "pwned")
			}},
		{name: "write through a symlink into .git", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "symlink-write", filepath.Join(f.W, ".git", "config"), filepath.Join(f.W, "cfg"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return fileHas(filepath.Join(f.W, ".git", "config"), "pwned")
			}},
		{name: "write through a hard link out of the root", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "hardlink-write", filepath.Join(f.O, "target.txt"), filepath.Join(f.W, "hl"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return fileHas(filepath.Join(f.O, "target.txt"), "pwned")
			}},
		{name: "rename a file out of the root", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "rename", filepath.Join(f.W, "file.txt"), filepath.Join(f.O, "file.txt"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(f.O, "file.txt"))
			}},
		{name: "rename inside the root still works", works: writers,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "rename", filepath.Join(f.W, "file.txt"), filepath.Join(f.W, "sub", "file.txt"))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(f.W, "sub", "file.txt"))
			}},
		// Network.
		{name: "TCP connect to 127.0.0.1", works: networked, denial: policy.DenialNetwork,
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "tcp-connect", f.listenTCP(t)) },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return f.waitReceived(out) }},
		{name: "UDP send to 127.0.0.1", works: networked,
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "udp-send", f.listenUDP(t)) },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return f.waitReceived(out) }},
		{name: "TCP listen on 127.0.0.1", works: networked,
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "tcp-listen") },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
		{name: "netlink socket", works: networked,
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "netlink") },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
		{name: "abstract unix socket outside the sandbox", works: onlyNone, needs: "landlock6",
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "abstract-connect", f.listenAbstract(t)) },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return f.waitReceived(out) }},
		{name: "unix socket inside the workspace still works", works: writers,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "unix-local", filepath.Join(f.W, "sock"))
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
		// Other processes and the kernel.
		{name: "ptrace a process outside", works: onlyNone, needs: "root", denial: policy.DenialSyscall,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "ptrace-attach", strconv.Itoa(f.startVictim(t).Process.Pid))
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
		{name: "ptrace TRACEME", works: onlyNone, denial: policy.DenialSyscall,
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "ptrace-traceme") },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
		{name: "io_uring_setup", works: onlyNone, needs: "io_uring", denial: policy.DenialSyscall,
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "io-uring") },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
		{name: "write the parent's memory through /proc/PID/mem", works: onlyNone, needs: "root",
			argv: func(t *testing.T, f *fixture) []string {
				f.mem = new([64]byte)
				addr := uintptr(unsafe.Pointer(&f.mem[0]))
				return attackArgv(t, "proc-mem", strconv.Itoa(os.Getpid()), strconv.FormatUint(uint64(addr), 10))
			},
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return atomic.LoadUint32((*uint32)(unsafe.Pointer(&f.mem[0]))) != 0
			}},
		{name: "a second Landlock ruleset cannot add rights", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string { return attackArgv(t, "landlock-widen", f.O) },
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				return exists(filepath.Join(f.O, "widened"))
			}},
		{name: "signal a process outside", works: onlyNone,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "kill", strconv.Itoa(f.startVictim(t).Process.Pid))
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return f.victimKilled(out) }},
		{name: "mount a tmpfs", works: onlyNone, needs: "root",
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "mount", filepath.Join(f.W, "sub"))
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
		{name: "make a block device in the workspace", works: onlyNone, needs: "root",
			argv: func(t *testing.T, f *fixture) []string { return attackArgv(t, "mknod", filepath.Join(f.W, "disk")) },
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool {
				st, err := os.Lstat(filepath.Join(f.W, "disk"))
				return err == nil && st.Mode()&os.ModeDevice != 0
			}},
		{name: "use a device node planted in the workspace", works: []string{vNone}, needs: "root",
			argv: func(t *testing.T, f *fixture) []string {
				// A copy of /dev/null (1,3): harmless to write, but a device
				// the mount layer must refuse to open under a root.
				if err := syscall.Mknod(filepath.Join(f.W, "null"), syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
					t.Fatal(err)
				}
				return attackArgv(t, "append", filepath.Join(f.W, "null"))
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
		{name: "use root's CAP_SYS_ADMIN on the host (sethostname)", works: onlyNone, needs: "root",
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "sethostname") },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
		{name: "a daemon outlives the command", works: onlyNone, groupOnly: true,
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "daemon", f.token) },
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool { return killByToken(t, f.token) > 0 }},
		{name: "a forked child outlives the timeout", works: onlyNone, timeout: time.Second, groupOnly: true,
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "daemon", f.token, "stay") },
			effect: func(t *testing.T, f *fixture, _ events.ExecOutcome) bool { return killByToken(t, f.token) > 0 }},
		// What must keep working.
		{name: "read a file outside the roots", works: all,
			argv: func(t *testing.T, f *fixture) []string {
				return attackArgv(t, "read", filepath.Join(f.O, "target.txt"))
			},
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool {
				return strings.Contains(out.Stdout, "original")
			}},
		{name: "write /dev/null", works: all,
			argv:   func(t *testing.T, f *fixture) []string { return attackArgv(t, "devnull") },
			effect: func(t *testing.T, f *fixture, out events.ExecOutcome) bool { return out.ExitCode == 0 }},
	}
}

func TestEscapeSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	runEscapeSuite(t, "", nil)
}

// TestEscapeSuiteUserNamespace runs the suite through the user namespace
// setup that unprivileged users get (root otherwise skips it).
func TestEscapeSuiteUserNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sandboxed processes")
	}
	if raceEnabled {
		t.Skip("same code as TestEscapeSuite; skipped to keep -race runs short")
	}
	runEscapeSuite(t, "", func(c *Capabilities) {
		if !c.UserNamespaces {
			t.Skip("no user namespaces on this machine")
		}
		c.Root = false
	})
}

// TestEscapeSuiteLeanHelper runs the suite again with the stand-alone helper
// built without cgo, whose Landlock goes through psx's pure-Go path. It
// runs under -race too: the helper itself cannot be instrumented (the race
// detector needs cgo), but the parent side (Run, the pipes, the stubs)
// is, and the lean helper's re-exec as init is a path of its own.
func TestEscapeSuiteLeanHelper(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary and runs real sandboxed processes")
	}
	runEscapeSuite(t, buildLeanHelper(t), nil)
}

// buildLeanHelper builds ./cmd/docket-sandbox-helper with CGO_ENABLED=0,
// unless $DOCKET_TEST_HELPER names one make built before the tests.
func buildLeanHelper(t testing.TB) string {
	if bin := os.Getenv("DOCKET_TEST_HELPER"); bin != "" {
		return bin
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain to build the helper")
	}
	out := filepath.Join(t.TempDir(), HelperName)
	cmd := exec.Command(gobin, "build", "-o", out, "./cmd/docket-sandbox-helper")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the helper: %v\n%s", err, b)
	}
	return out
}

// runEscapeSuite runs every case through Run; adjust, when set, changes
// what Run is told about the machine so that it takes another setup.
func runEscapeSuite(t *testing.T, helper string, adjust func(*Capabilities)) {
	runEscapeSuiteWith(t, helper, adjust, Run)
}

// runEscapeSuiteWith is runEscapeSuite with the function that runs each attack.
func runEscapeSuiteWith(t *testing.T, helper string, adjust func(*Capabilities), run func(context.Context, Request) (events.ExecOutcome, error)) {
	caps := Probe()
	if caps.LandlockABI < 1 || !caps.Seccomp {
		t.Fatalf("the escape suite needs Landlock and seccomp: %+v", caps)
	}
	needsCaps := caps // what the attacks themselves may rely on
	if adjust != nil {
		adjust(&caps)
	}
	cases := escapeCases()
	if len(cases) < 30 {
		t.Fatalf("escape suite has %d cases, want at least 30", len(cases))
	}
	runCases(t, cases, helper, caps, needsCaps, run)
}

// runCases runs each case under every variant, the unsandboxed one first.
func runCases(t *testing.T, cases []escapeCase, helper string, caps, needsCaps Capabilities, run func(context.Context, Request) (events.ExecOutcome, error)) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if reason := missingNeed(c.needs, needsCaps); reason != "" {
				t.Skip(reason)
			}
			for _, v := range variantNames {
				want := slices.Contains(c.works, v)
				f := newFixture(t)
				argv := c.argv(t, f)
				plan := f.plan(v)
				if c.adjustPlan != nil {
					plan = c.adjustPlan(f, v, plan)
				}
				timeout := c.timeout
				if timeout == 0 {
					timeout = time.Minute
				}
				req := Request{
					Argv: argv, Cwd: f.W, Plan: plan, Timeout: timeout,
					KillGrace: 500 * time.Millisecond, Caps: &caps, HelperPath: helper,
				}
				if v == vNone && c.groupOnly {
					req.tree = groupOnly
				}
				out, err := run(context.Background(), req)
				if err != nil {
					t.Fatalf("%s: Run: %v", v, err)
				}
				got := c.effect(t, f, out)
				detail := fmt.Sprintf("exit=%d signal=%q layers=%v output=%q", out.ExitCode, out.Signal, out.Layers, out.Output)
				switch {
				case v == vNone && !got:
					t.Fatalf("the attack does not work even without a sandbox, so this case proves nothing: %s", detail)
				case want && !got:
					t.Errorf("%s: should still work but was blocked: %s", v, detail)
				case !want && got:
					t.Errorf("%s: ESCAPE: the attack worked: %s", v, detail)
				}
				if v != vNone && !want && c.denial != "" {
					wantReason := c.denial
					if plan.Mode == ModeReadOnly && wantReason == policy.DenialReadOnlyPath {
						// Read-only plans protect nothing in particular.
						wantReason = policy.DenialWriteDenied
					}
					ev := policy.ClassifyDenial(out, plan, f.W)
					if ev == nil || ev.Reason != wantReason {
						t.Errorf("%s: Classify = %+v, want reason %q: %s", v, ev, wantReason, detail)
					}
				}
			}
		})
	}
}

func missingNeed(need string, caps Capabilities) string {
	switch need {
	case "root":
		if !caps.Root {
			return "needs root to work even without a sandbox"
		}
	case "io_uring":
		if b, err := os.ReadFile("/proc/sys/kernel/io_uring_disabled"); err == nil && strings.TrimSpace(string(b)) != "0" {
			return "io_uring is disabled on this kernel"
		}
	case "landlock6":
		if caps.LandlockABI < 6 {
			return "abstract unix socket scoping needs Landlock ABI 6"
		}
	}
	return ""
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{W: filepath.Join(t.TempDir(), "w"), O: filepath.Join(t.TempDir(), "o")}
	f.token = fmt.Sprintf("docket-escape-%d-%d", os.Getpid(), time.Now().UnixNano())
	for _, d := range []string{filepath.Join(f.W, ".git", "hooks"), filepath.Join(f.W, "sub"), f.O} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(f.W, ".git", "config"): "[core]\n\tbare = false\n",
		filepath.Join(f.W, ".git", "HEAD"):   "ref: refs/heads/main\n",
		filepath.Join(f.W, "file.txt"):       "in the workspace\n",
		filepath.Join(f.O, "target.txt"):     "original\n",
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		// A mount left by a successful attack would keep TempDir from cleaning up.
		syscall.Unmount(filepath.Join(f.W, "sub"), syscall.MNT_DETACH)
		os.Chmod(filepath.Join(f.O, "target.txt"), 0o644)
		killByToken(t, f.token)
	})
	return f
}

// countLines accepts connections on l until it closes, counting those that
// bring a line.
func (f *fixture) countLines(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		if line, _ := bufio.NewReader(c).ReadString('\n'); line != "" {
			f.received.Add(1)
		}
		c.Close()
	}
}

// listenTCP accepts one connection and counts the bytes it brings.
func (f *fixture) listenTCP(t *testing.T) string {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go f.countLines(l)
	return l.Addr().String()
}

func (f *fixture) listenUDP(t *testing.T) string {
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := c.ReadFrom(buf); err != nil {
				return
			}
			f.received.Add(1)
		}
	}()
	return c.LocalAddr().String()
}

func (f *fixture) listenAbstract(t *testing.T) string {
	name := f.token
	l, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go f.countLines(l)
	return name
}

// waitReceived gives a listener a moment to see data the attack already
// sent (loopback delivery is immediate; the wait only covers scheduling).
// An attack that says it sent (exit 0) gets a generous bound: on a loaded
// machine the listener's goroutine may wait long for a CPU, and a short
// bound there would call a working attack blocked. One that failed gets
// the short look, which still catches data that arrived regardless.
func (f *fixture) waitReceived(out events.ExecOutcome) bool {
	return waitUntil(boundFor(out), func() bool { return f.received.Load() > 0 })
}

// boundFor is how long to wait for an attack's effect: long when the
// attack reports success (the effect is then only a matter of
// scheduling), short when it failed (nothing should come; a long wait
// would only slow every blocked variant).
func boundFor(out events.ExecOutcome) time.Duration {
	if out.ExitCode == 0 {
		return 30 * time.Second
	}
	return 500 * time.Millisecond
}

// waitUntil polls cond every 10ms until it holds or d has passed.
func waitUntil(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); {
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cond()
}

func (f *fixture) startVictim(t *testing.T) *exec.Cmd {
	cmd := exec.Command(testBinary(t), attackArg, "sleeper", strings.Replace(f.token, "escape", "victim", 1))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.victim = cmd
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	return cmd
}

// victimKilled reports whether the victim died of SIGTERM, waiting as
// boundFor(out) says: a signalled process on a loaded machine may take a
// while to be scheduled and exit.
func (f *fixture) victimKilled(out events.ExecOutcome) bool {
	return waitUntil(boundFor(out), func() bool {
		if err := f.victim.Process.Signal(syscall.Signal(0)); err != nil {
			return true
		}
		// A zombie still accepts signal 0; look at its state.
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", f.victim.Process.Pid)); err == nil {
			if fields := strings.Fields(string(b)); len(fields) > 2 && fields[2] == "Z" {
				return true
			}
		}
		return false
	})
}

// killByToken kills every live process whose command line contains token
// and returns how many it found.
func killByToken(t *testing.T, token string) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(b), token) {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			if fields := strings.Fields(string(st)); len(fields) > 2 && fields[2] == "Z" {
				continue
			}
		}
		syscall.Kill(pid, syscall.SIGKILL)
		n++
	}
	return n
}
