package enginetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// RunnersUnderTest are two runners of one implementation: Refusing cannot
// enforce any sandbox here (as on a machine without Landlock), Working can
// run commands.
type RunnersUnderTest struct {
	Refusing func(t *testing.T) engine.Runner
	Working  func(t *testing.T) engine.Runner
}

// CheckRunner runs the part of the engine.Runner contract that holds for
// every implementation: a plan that cannot be enforced is refused by Check
// and reported by Run as an outcome (SandboxError), with nothing run; and
// Run returns once its context is done.
func CheckRunner(t *testing.T, r RunnersUnderTest) {
	t.Run("a plan that cannot be enforced is refused and nothing runs", func(t *testing.T) {
		ws := t.TempDir()
		marker := filepath.Join(ws, "ran")
		req := engine.RunRequest{ExecStarted: events.ExecStarted{CallID: "c1", Attempt: 1, Tool: "shell",
			Argv: []string{"touch", marker}, Cwd: ws,
			Sandbox: events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, WritableRoots: []string{ws}}}}
		run := r.Refusing(t)
		if err := run.Check(context.Background(), req); err == nil {
			t.Fatal("Check accepted a plan this runner cannot enforce")
		}
		out, err := run.Run(context.Background(), req)
		if err != nil {
			t.Fatalf("an unenforceable plan is an outcome, not an error: %v", err)
		}
		if out.SandboxError == "" {
			t.Fatalf("the outcome does not say the sandbox was unavailable: %+v", out)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the command ran although its sandbox could not be had")
		}
	})

	t.Run("run returns once its context is done", func(t *testing.T) {
		ws := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req := engine.RunRequest{ExecStarted: events.ExecStarted{CallID: "c1", Attempt: 1, Tool: "shell",
			Argv: []string{"sleep", "600"}, Cwd: ws, Sandbox: events.SandboxPlan{Mode: events.SandboxNone}}}
		// A runner that ignored ctx would hold this test until its timeout.
		out, err := r.Working(t).Run(ctx, req)
		if err == nil && out.ExitCode == 0 && !out.TimedOut {
			t.Fatalf("a cancelled run reports a clean exit: %+v", out)
		}
	})
}
