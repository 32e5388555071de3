package engine_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/states/policy"
)

// noopRunner finishes every call at once: what is left is the engine.
type noopRunner struct{}

func (noopRunner) Check(context.Context, engine.RunRequest) error { return nil }
func (noopRunner) Run(_ context.Context, req engine.RunRequest) (events.ExecOutcome, error) {
	return events.ExecOutcome{ExitCode: 0, Output: "ok\n", DurationNs: 1000}, nil
}

func benchSession(b *testing.B, calls, perResponse int, runner engine.Runner) (*engine.Session, *journal.Journal) {
	b.Helper()
	var lines []string
	for i := 0; i < calls; i += perResponse {
		var items []string
		for k := 0; k < perResponse && i+k < calls; k++ {
			items = append(items, fmt.Sprintf(`{"type":"function_call","call_id":"c%d","name":"shell","arguments":{"command":["sleep","0.2"]}}`, i+k))
		}
		lines = append(lines, `{"output":[`+strings.Join(items, ",")+`]}`)
	}
	lines = append(lines, `{"output":[{"type":"message","content":"done"}]}`)
	mdl, err := script.Parse("bench", []byte(strings.Join(lines, "\n")))
	if err != nil {
		b.Fatal(err)
	}
	home, ws := b.TempDir(), b.TempDir()
	mode, _ := policy.ParseSandboxMode("workspace-write")
	j, err := journal.Create(home, "bench", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	s, err := engine.Start(engine.Config{SessionID: "bench", Home: home, Cwd: ws,
		Session: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"},
		Plan:    workspace.SandboxPlan(policy.SandboxPolicy{Mode: mode}, ws, "", false), Model: mdl,
		Approver: &enginetest.ScriptedApprover{}, Runner: runner,
		Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}}, j)
	if err != nil {
		b.Fatal(err)
	}
	return s, j
}

// BenchmarkEngineOverheadPerCall is the cost of one executed call through
// the whole machine (decision, FSM, journal with real fsyncs) when the
// process itself costs nothing.
func BenchmarkEngineOverheadPerCall(b *testing.B) {
	s, j := benchSession(b, b.N, 1, noopRunner{})
	defer j.Close()
	start := j.Commits()
	b.ResetTimer()
	if _, err := s.Turn(context.Background(), "go"); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(j.Commits()-start)/float64(b.N), "commits/call")
}

// BenchmarkParallelSleeps runs responses of 8 parallel-safe `sleep 0.2`
// calls under the real sandbox: about 0.2 s a response, not 1.6 s.
func BenchmarkParallelSleeps(b *testing.B) {
	exe, _ := os.Executable()
	s, j := benchSession(b, 8*b.N, 8, &engine.ProcessRunner{HelperPath: exe})
	defer j.Close()
	start := j.Commits()
	b.ResetTimer()
	t0 := time.Now()
	if _, err := s.Turn(context.Background(), "go"); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(time.Since(t0).Seconds()/float64(b.N), "s/response")
	b.ReportMetric(float64(j.Commits()-start)/float64(8*b.N), "commits/call")
}
