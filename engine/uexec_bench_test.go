package engine_test

import (
	"context"
	"os"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/uexec"
	"github.com/docket-engine/docket/events"
)

// benchRun runs `true` b.N times through the real runner under the
// read-only sandbox: as a shell call (run to completion) or as an
// exec_command (a process in the session's table, polled to its exit).
func benchRun(b *testing.B, tool string) {
	exe, _ := os.Executable()
	ws := b.TempDir()
	plan, err := sessionPlan(events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "read-only"}, ws)
	if err != nil {
		b.Fatal(err)
	}
	procs := &uexec.Table{}
	defer procs.Close()
	r := &engine.ProcessRunner{HelperPath: exe, Processes: procs}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st := events.ExecStarted{CallID: "c", Attempt: 1, Tool: tool, Argv: []string{"true"}, Cwd: ws, Sandbox: plan, TimeoutMs: 10_000}
		if tool == engine.ExecCommandName {
			st.Process = &events.ProcessCall{ID: 1000 + i, YieldMs: 10_000, MaxOutputTokens: 100}
		}
		out, err := r.Run(context.Background(), engine.RunRequest{ExecStarted: st})
		if err != nil || out.ExitCode != 0 || out.Error != "" || out.SandboxError != "" {
			b.Fatalf("run %d: %v %+v", i, err, out)
		}
	}
}

func BenchmarkShellTrue(b *testing.B)       { benchRun(b, "shell") }
func BenchmarkExecCommandTrue(b *testing.B) { benchRun(b, engine.ExecCommandName) }
