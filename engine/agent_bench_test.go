package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
)

// BenchmarkSubagentTurn measures what a subagent costs the engine: one turn
// whose single shell call runs directly, against the same call made by a
// subagent (its own session, journal and turn). Journals are in memory and
// the runner returns at once, so what is left is the engine's own work.
func BenchmarkSubagentTurn(b *testing.B) {
	shell := `{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["true"]}}`
	for _, bc := range []struct {
		name  string
		lines []string
	}{
		{"direct", []string{`{"output":[` + shell + `]}`, `{"output":[{"type":"message","content":"done"}]}`}},
		{"via_subagent", []string{
			`{"output":[{"type":"function_call","call_id":"p1","name":"spawn_agent","arguments":{"prompt":"p","name":"a"}}]}`,
			`{"output":[{"type":"message","content":"done"}]}`,
			`{"agent":"a","output":[` + shell + `]}`,
			`{"agent":"a","output":[{"type":"message","content":"a done"}]}`,
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				sm, err := script.Parse("bench", []byte(strings.Join(bc.lines, "\n")))
				if err != nil {
					b.Fatal(err)
				}
				host := &memHost{logs: map[string]*enginetest.MemLog{}, script: sm}
				s, err := engine.Start(engine.Config{SessionID: "01a213dd-3096-70c1-ad19-4f6160183b4f", Cwd: "/w",
					Session: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write"},
					Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite},
					Model:   sm, Approver: &enginetest.ScriptedApprover{}, Runner: noopRunner{}, Agents: host,
					Tools: []engine.Tool{engine.ShellTool{}, engine.SpawnAgentTool{}}}, &enginetest.MemLog{})
				if err != nil {
					b.Fatal(err)
				}
				res, err := s.Turn(context.Background(), "go")
				if err != nil || res.Status != events.TurnCompleted {
					b.Fatalf("%+v %v", res, err)
				}
			}
		})
	}
}
