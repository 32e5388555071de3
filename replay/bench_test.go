package replay_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay"
	"github.com/docket-engine/docket/states/policy"
)

// okRunner says every command printed "ok" and spawns nothing.
func okRunner() *enginetest.FakeRunner {
	return &enginetest.FakeRunner{Outcome: func(context.Context, engine.RunRequest) (events.ExecOutcome, error) {
		return events.ExecOutcome{Output: "ok\n", DurationNs: 1000}, nil
	}}
}

// bigSession records a session of n shell calls, 10 to a response.
func bigSession(b *testing.B, n int) []events.Record {
	b.Helper()
	var lines []string
	for i := 0; i < n; i += 10 {
		var items []string
		for k := i; k < i+10 && k < n; k++ {
			items = append(items, fmt.Sprintf(`{"type":"function_call","call_id":"c%d","name":"shell","arguments":{"command":["bash","-lc","echo %d > f%d"]}}`, k, k, k))
		}
		lines = append(lines, `{"output":[`+strings.Join(items, ",")+`]}`)
	}
	lines = append(lines, `{"output":[{"type":"message","content":"done"}]}`)
	mdl, err := script.Parse("big", []byte(strings.Join(lines, "\n")))
	if err != nil {
		b.Fatal(err)
	}
	mode, _ := policy.ParseSandboxMode("workspace-write")
	log := &enginetest.MemLog{}
	s, err := engine.Start(engine.Config{SessionID: "big", Cwd: "/work/ws",
		Session: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"},
		Plan:    workspace.SandboxPlan(policy.SandboxPolicy{Mode: mode}, "/work/ws", "", false), Model: mdl,
		Approver: flags(), Runner: okRunner(), Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}}, log)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Turn(context.Background(), "go"); err != nil {
		b.Fatal(err)
	}
	return log.Records()
}

func BenchmarkVerifyReplay10kCalls(b *testing.B) {
	recs := bigSession(b, 10_000)
	transitions := count(recs, events.KindTransition)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := replay.Verify(context.Background(), recs, replay.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(transitions*b.N)/b.Elapsed().Seconds(), "transitions/s")
	b.ReportMetric(float64(len(recs)), "records")
}

// BenchmarkResume10kCalls opens the journal file, reads it and rebuilds
// the session: what `docket resume` does before it can ask anything.
func BenchmarkResume10kCalls(b *testing.B) {
	recs := bigSession(b, 10_000)
	home := b.TempDir()
	j, err := journal.Create(home, "big", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range recs {
		body, _ := r.Decode()
		if _, err := j.Append(time.Unix(0, r.At), r.CallID, body); err != nil {
			b.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		b.Fatal(err)
	}
	path := j.Path()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j, err := journal.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		all, err := j.All()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := engine.Restore(engine.Config{Model: &script.Model{}, Approver: flags(), Runner: okRunner(),
			Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}}, j, all); err != nil {
			b.Fatal(err)
		}
		if err := j.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
