package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/docket-engine/docket/events"
)

// BenchmarkRunTrueAfterAFill is a sandboxed `true` in a workspace past the
// walk's bound (3,600 directories in one, a repository below them): the
// walk is cut short every call, and what it did not see is bound
// read-only (at most 64 binds). The cost of failing closed, next to
// BenchmarkRunTrue* in a small workspace.
func BenchmarkRunTrueAfterAFill(b *testing.B) {
	caps := Probe()
	if err := caps.Check(events.SandboxPlan{Mode: ModeWorkspaceWrite}); err != nil {
		b.Skip(err)
	}
	ws := b.TempDir()
	for i := range 3600 {
		if err := os.MkdirAll(filepath.Join(ws, "a", fmt.Sprint(i)), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(ws, "z", "y", "x", "repo", ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	plan := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{ws}, ReadOnlySubpaths: []string{filepath.Join(ws, ".git")}}
	req := Request{Argv: []string{"true"}, Cwd: ws, Plan: plan, Caps: &caps}
	for b.Loop() {
		out, err := Run(context.Background(), req)
		if err != nil || out.ExitCode != 0 {
			b.Fatalf("exit %d: %v", out.ExitCode, err)
		}
	}
}
