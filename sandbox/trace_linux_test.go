package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/layers"
)

// TestTraceRecordsPhasesAndNeverReachesTheCommand: with TraceEnv set, docket
// and the helper both write their phases to the file, and the command
// holds no descriptor but its three streams (the trace's included).
func TestTraceRecordsPhasesAndNeverReachesTheCommand(t *testing.T) {
	caps := Probe()
	if err := caps.Check(events.SandboxPlan{Mode: ModeWorkspaceWrite}); err != nil {
		t.Skip(err)
	}
	w := t.TempDir()
	file := filepath.Join(t.TempDir(), "trace")
	t.Setenv(TraceEnv, file)
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w}}
	// ls lists its own descriptors: 0, 1, 2 and the directory it reads.
	out := mustRun(t, Request{Argv: []string{"sh", "-c", "ls /proc/self/fd"}, Cwd: w, Plan: plan, Caps: &caps})
	if out.ExitCode != 0 {
		t.Fatalf("exit %d: %s", out.ExitCode, out.Stderr)
	}
	if fds := strings.Fields(out.Stdout); len(fds) > 4 {
		t.Errorf("the command holds descriptors %v, want only 0, 1, 2 and ls's own", fds)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(l); len(f) == 3 {
			phases = append(phases, f[1])
		}
	}
	for _, want := range []string{"run.start", "gitwalk", "clone", "helper.main", "landlock", "seccomp", "helper.exit"} {
		if !slices.Contains(phases, want) {
			t.Errorf("trace has no %q: %v", want, phases)
		}
	}
}

// TestCommandProcessesAreInTheCallsCgroup: the helper joins the leaf with
// one thread on cgroup v1 (tasks), and every process of the command, a
// child of the shell too, is in the leaf of each limited controller.
func TestCommandProcessesAreInTheCallsCgroup(t *testing.T) {
	caps := Probe()
	if err := caps.Check(events.SandboxPlan{Mode: ModeWorkspaceWrite}); err != nil {
		t.Skip(err)
	}
	cg := newCallCgroup(DefaultLimits())
	if cg == nil {
		t.Skip("no cgroup leaf can be made here")
	}
	version := 2
	if strings.HasPrefix(cg.Layer(), layers.Cgroup+"-v1:") {
		version = 1
	}
	_ = cg.Remove()
	w := t.TempDir()
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w}, Limits: DefaultLimits()}
	out := mustRun(t, Request{Argv: []string{"sh", "-c", "cat /proc/self/cgroup; echo; cat /proc/$$/cgroup"}, Cwd: w, Plan: plan, Caps: &caps})
	if out.ExitCode != 0 {
		t.Fatalf("exit %d: %s", out.ExitCode, out.Stderr)
	}
	for _, part := range strings.Split(out.Stdout, "\n\n") {
		var in []string
		for _, l := range strings.Split(part, "\n") {
			f := strings.SplitN(l, ":", 3)
			if len(f) != 3 {
				continue
			}
			limited := (version == 1 && (f[1] == "memory" || f[1] == "pids")) || (version == 2 && f[0] == "0")
			if limited && strings.Contains(f[2], "/docket-call-") {
				in = append(in, f[1])
			}
			if limited && !strings.Contains(f[2], "/docket-call-") {
				t.Errorf("a process of the command is outside the call's leaf: %q", l)
			}
		}
		if len(in) == 0 {
			t.Errorf("no limited controller names the call's leaf in\n%s", part)
		}
	}
}
