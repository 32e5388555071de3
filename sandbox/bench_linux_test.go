package sandbox

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/stubs"
)

// The Run benchmarks measure what the engine pays per call. With the
// default helper (this test binary, cgo) each call includes one start of a
// cgo Go binary; the LeanHelper variants use ./cmd/docket-sandbox-helper
// built without cgo, as an installed docket would when the helper is next
// to it.

func BenchmarkExecTrueBare(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func readOnlyPlan(string) events.SandboxPlan { return events.SandboxPlan{Mode: ModeReadOnly} }

func readOnlyNetworkPlan(string) events.SandboxPlan {
	return events.SandboxPlan{Mode: ModeReadOnly, Network: true}
}

func workspaceWritePlan(w string) events.SandboxPlan {
	return events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{w},
		ReadOnlySubpaths: []string{filepath.Join(w, ".git"), filepath.Join(w, ".docket"), filepath.Join(w, ".agents")}}
}

func benchmarkRun(b *testing.B, helper string, plan func(w string) events.SandboxPlan) {
	w := b.TempDir()
	caps := Probe()
	// Kept for the session, as the engine does.
	var ph stubs.Keeper
	b.Cleanup(func() { ph.Close() })
	req := Request{Argv: []string{"true"}, Cwd: w, Plan: plan(w), Caps: &caps, HelperPath: helper, Stubs: &ph}
	for b.Loop() {
		out, err := Run(context.Background(), req)
		if err != nil || out.ExitCode != 0 {
			b.Fatalf("exit %d: %v", out.ExitCode, err)
		}
	}
}

func BenchmarkRunTrueNone(b *testing.B) {
	benchmarkRun(b, "", func(string) events.SandboxPlan { return events.SandboxPlan{Mode: ModeNone} })
}

func BenchmarkRunTrueReadOnly(b *testing.B)        { benchmarkRun(b, "", readOnlyPlan) }
func BenchmarkRunTrueReadOnlyNetwork(b *testing.B) { benchmarkRun(b, "", readOnlyNetworkPlan) }
func BenchmarkRunTrueWorkspaceWrite(b *testing.B)  { benchmarkRun(b, "", workspaceWritePlan) }

func BenchmarkRunTrueLeanHelperReadOnly(b *testing.B) {
	benchmarkRun(b, buildLeanHelper(b), readOnlyPlan)
}

func BenchmarkRunTrueLeanHelperReadOnlyNetwork(b *testing.B) {
	benchmarkRun(b, buildLeanHelper(b), readOnlyNetworkPlan)
}

func BenchmarkRunTrueLeanHelperWorkspaceWrite(b *testing.B) {
	benchmarkRun(b, buildLeanHelper(b), workspaceWritePlan)
}

// BenchmarkRunTrueLeanHelperWorkspaceWriteFreshStubs makes and
// removes the three stubs on every call (Request.Stubs nil),
// as `docket sandbox` does.
func BenchmarkRunTrueLeanHelperWorkspaceWriteFreshStubs(b *testing.B) {
	helper := buildLeanHelper(b)
	w := b.TempDir()
	caps := Probe()
	req := Request{Argv: []string{"true"}, Cwd: w, Plan: workspaceWritePlan(w), Caps: &caps, HelperPath: helper}
	for b.Loop() {
		if out, err := Run(context.Background(), req); err != nil || out.ExitCode != 0 {
			b.Fatalf("exit %d: %v", out.ExitCode, err)
		}
	}
}
