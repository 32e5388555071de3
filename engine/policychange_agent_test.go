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

// A subagent spawned after /approvals starts from the policy in force,
// not the one the session started with: tightened to untrusted, the
// parent's child asks before it runs a command, as the parent would.
func TestSubagentStartsFromThePolicyInForce(t *testing.T) {
	t.Parallel()
	lines := strings.Join([]string{
		`{"output":[{"type":"function_call","call_id":"p1","name":"spawn_agent","arguments":{"prompt":"a","name":"a"}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`,
		`{"agent":"a","output":[{"type":"function_call","call_id":"x1","name":"shell","arguments":{"command":["touch","x"]}}]}`,
		`{"agent":"a","output":[{"type":"message","content":"a done"}]}`,
	}, "\n")
	sm, err := script.Parse("policy.jsonl", []byte(lines))
	if err != nil {
		t.Fatal(err)
	}
	host := &memHost{logs: map[string]*enginetest.MemLog{}, script: sm}
	appr := &enginetest.ScriptedApprover{Answers: []events.ReviewDecision{events.Approved}}
	s, err := engine.Start(engine.Config{SessionID: "01a213dd-3096-70c1-ad19-4f6160183b4f", Cwd: t.TempDir(),
		Session: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write"},
		Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite},
		Model:   sm, Approver: appr, Runner: &enginetest.FakeRunner{}, Agents: host,
		Tools: []engine.Tool{engine.ShellTool{}, engine.SpawnAgentTool{}}}, &enginetest.MemLog{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetApprovalPolicy("untrusted", events.SourceUser); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Turn(context.Background(), "go"); err != nil || res.Status != events.TurnCompleted {
		t.Fatalf("%+v %v", res, err)
	}
	recs := host.child(t, "a")
	b, _ := recs[0].Decode()
	if ss := b.(*events.SessionStarted); ss.Config.ApprovalPolicy != "untrusted" {
		t.Errorf("the child started under %q, want the parent's policy in force (untrusted)", ss.Config.ApprovalPolicy)
	}
	if asked := appr.Asked(); len(asked) != 1 || asked[0].CallID != "x1" {
		t.Errorf("asked %+v; want the child's x1 asked once", asked)
	}
}
