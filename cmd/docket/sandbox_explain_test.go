package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/")

func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	checkGolden(t, filepath.Join("testdata", "explain", name), got)
}

// checkGolden compares got with the file at path; go test -update
// rewrites it.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n--- got ---\n%s", path, got)
	}
}

// TestExplainForecastGolden pins the words `docket sandbox --explain` prints
// for the machines docket meets: root on a new kernel (this one), a user
// with user namespaces on an older Landlock, a user without them, and a
// kernel without Landlock, where the sandbox is refused.
func TestExplainForecastGolden(t *testing.T) {
	t.Parallel()
	ws := "/work/proj"
	rw := events.SandboxPlan{Mode: sandbox.ModeWorkspaceWrite, WritableRoots: []string{ws, "/tmp"},
		ReadOnlySubpaths: []string{ws + "/.git", ws + "/.docket", ws + "/.agents"}, Limits: sandbox.DefaultLimits()}
	rwNet := rw
	rwNet.Network = true
	strict := rw
	strict.RequireProtectedPaths = true
	root := sandbox.Capabilities{OS: "linux", LandlockABI: 7, Seccomp: true, Root: true, UserNamespaces: true}
	oldUser := sandbox.Capabilities{OS: "linux", LandlockABI: 3, Seccomp: true, UserNamespaces: true}
	noNS := sandbox.Capabilities{OS: "linux", LandlockABI: 7, Seccomp: true,
		Notes: []string{"userns: kernel.apparmor_restrict_unprivileged_userns = 1"}}
	noLandlock := sandbox.Capabilities{OS: "linux", Seccomp: true, UserNamespaces: true,
		Notes: []string{"landlock: not available (function not implemented)"}}
	tests := []struct {
		name string
		plan events.SandboxPlan
		caps sandbox.Capabilities
	}{
		{"root-read-only.txt", events.SandboxPlan{Mode: sandbox.ModeReadOnly, Limits: sandbox.DefaultLimits()}, root},
		{"root-workspace-write.txt", rw, root},
		{"root-workspace-write-network.txt", rwNet, root},
		{"user-landlock3.txt", rw, oldUser},
		{"user-without-namespaces.txt", rw, noNS},
		{"user-without-namespaces-strict.txt", strict, noNS},
		{"no-landlock.txt", rw, noLandlock},
		{"danger-full-access.txt", events.SandboxPlan{Mode: sandbox.ModeNone}, root},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeForecast(&b, tt.plan, tt.caps); err != nil {
				t.Fatal(err)
			}
			goldenFile(t, tt.name, b.Bytes())
		})
	}
}

func TestExplainEnforcedGolden(t *testing.T) {
	t.Parallel()
	plan := events.SandboxPlan{Mode: sandbox.ModeWorkspaceWrite, WritableRoots: []string{"/work/proj"}, Limits: sandbox.DefaultLimits()}
	for name, layers := range map[string][]string{
		// What this machine gave a root docket (docket sandbox --verbose).
		"enforced-root.txt": {"landlock:v7", "seccomp", "caps", "mountns", "pidns", "netns", "ipcns", "utsns", "gitdirs:partial",
			"unix-sockets-covered", "devpts", "cgroup-v1:memory,pids", "rlimit:cpu,fsize"},
		// The fallback without namespaces, as a non-root user without a cgroup gets it.
		"enforced-fallback.txt": {"landlock:v7", "seccomp", "rlimit:cpu,fsize"},
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeEnforced(&b, plan, events.ExecOutcome{Layers: layers}); err != nil {
				t.Fatal(err)
			}
			goldenFile(t, name, b.Bytes())
		})
	}
}

// TestSandboxExplainWithoutACommand drives the CLI: --explain alone prints
// this machine's forecast and runs nothing.
func TestSandboxExplainWithoutACommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, stdout, stderr := cliRun(t, "sandbox", "--explain", "-s", "workspace-write", "-C", dir)
	caps := sandbox.Probe()
	wantCode := exitOK
	if caps.Check(events.SandboxPlan{Mode: sandbox.ModeWorkspaceWrite}) != nil {
		wantCode = exitSandboxFailed
	}
	if code != wantCode {
		t.Fatalf("exit %d, want %d; stderr %q", code, wantCode, stderr)
	}
	for _, want := range []string{"this machine: " + machineSummary(caps), "sandbox workspace-write, network off"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, l := range caps.Layers(events.SandboxPlan{Mode: sandbox.ModeWorkspaceWrite}) {
		if !strings.Contains(stdout, "    "+l+" ") {
			t.Errorf("forecast layer %q is not explained:\n%s", l, stdout)
		}
	}
	if code, _, stderr := cliRun(t, "sandbox", "-C", dir); code != exitUsage {
		t.Errorf("without --explain a command is still required: exit %d, stderr %q", code, stderr)
	}
}
