package engine_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
)

func TestSpawnAgentMayOnlyNarrow(t *testing.T) {
	t.Parallel()
	parent := events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write", WritableRoots: []string{"/w/extra"}}
	plan := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, WritableRoots: []string{"/w", "/w/extra"}}
	for _, tc := range []struct {
		name, args string
		depth      int
		ordinal    int
		config     events.SessionConfig
		refused    string // part of the error; "" accepts
		wantPolicy string
		wantMode   events.SandboxMode
		wantRoots  int
	}{
		{name: "no overrides inherit everything", args: `{"prompt":"p"}`, wantPolicy: "on-request", wantMode: events.SandboxWorkspaceWrite, wantRoots: 2},
		{name: "a stricter approval policy is taken", args: `{"prompt":"p","approval_policy":"untrusted"}`, wantPolicy: "untrusted", wantMode: events.SandboxWorkspaceWrite, wantRoots: 2},
		{name: "read-only drops the writable roots", args: `{"prompt":"p","sandbox_mode":"read-only"}`, wantPolicy: "on-request", wantMode: events.SandboxReadOnly},
		{name: "an approval policy that asks less is refused", args: `{"prompt":"p","approval_policy":"never"}`, refused: `approval_policy "never" asks less often`},
		{name: "a wider sandbox is refused", args: `{"prompt":"p","sandbox_mode":"danger-full-access"}`, refused: `sandbox_mode "danger-full-access" allows more`},
		{name: "network the parent lacks is refused", args: `{"prompt":"p","network_access":true}`, refused: "network_access true"},
		{name: "an unknown override is refused", args: `{"prompt":"p","writable_roots":["/"]}`, refused: "unknown field"},
		{name: "a name that cannot address calls is refused", args: `{"prompt":"p","name":"a/b"}`, refused: "letters, digits"},
		{name: "beyond the depth bound is refused", args: `{"prompt":"p"}`, depth: 2, refused: "subagents.max_depth is 2"},
		{name: "a configured depth bound is used", args: `{"prompt":"p"}`, depth: 1, config: events.SessionConfig{SubagentMaxDepth: 1}, refused: "subagents.max_depth is 1"},
		{name: "beyond the count bound is refused", args: `{"prompt":"p"}`, ordinal: 9, refused: "subagents.max_children is 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := parent
			sc.SubagentMaxDepth = tc.config.SubagentMaxDepth
			ord := tc.ordinal
			if ord == 0 {
				ord = 1
			}
			env := &engine.Env{Cwd: "/w", Config: sc, Plan: plan, SessionID: "01a213dd-3096-70c1-ad19-4f6160183b4f",
				Agents: engine.AgentLimits{Depth: tc.depth, Ordinal: func(string) int { return ord }}}
			prep, err := engine.SpawnAgentTool{}.Prepare(engine.Call{ID: "c1", Name: engine.SpawnAgentName, Kind: model.ToolFunction, Payload: tc.args}, env)
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("err %v, want a refusal naming %q", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sp := prep.Start.Agent
			if sp.Config.ApprovalPolicy != tc.wantPolicy || prep.Start.Sandbox.Mode != tc.wantMode || len(prep.Start.Sandbox.WritableRoots) != tc.wantRoots {
				t.Errorf("child config %+v plan %+v", sp.Config, prep.Start.Sandbox)
			}
			if sp.ChildID != engine.ChildSessionID(env.SessionID, "c1") || sp.Depth != tc.depth+1 {
				t.Errorf("child id %s depth %d", sp.ChildID, sp.Depth)
			}
		})
	}
	if engine.ChildSessionID("01a213dd-3096-70c1-ad19-4f6160183b4f", "c1") == engine.ChildSessionID("01a213dd-3096-70c1-ad19-4f6160183b4f", "c2") {
		t.Error("two calls name the same child")
	}
}

// memHost keeps children's journals in memory.
type memHost struct {
	mu     sync.Mutex
	logs   map[string]*enginetest.MemLog
	script *script.Model
}

type memChild struct{ *enginetest.MemLog }

func (memChild) Close() error { return nil }

func (h *memHost) CreateLog(id string) (engine.ChildLog, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := &enginetest.MemLog{}
	h.logs[id] = l
	return memChild{l}, nil
}

func (h *memHost) OpenLog(id string) (engine.ChildLog, []events.Record, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l, ok := h.logs[id]
	if !ok {
		return nil, nil, fmt.Errorf("no journal of %s: %w", id, fs.ErrNotExist)
	}
	return memChild{l}, l.Records(), nil
}

func (h *memHost) Model(name string, used engine.ScriptUse) (model.Model, error) {
	m := h.script.ForAgent(name)
	m.Skip(used.Responses)
	m.SkipCompactions(used.Compactions)
	return m, nil
}

func (h *memHost) child(t *testing.T, name string) []events.Record {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range h.logs {
		recs := l.Records()
		b, _ := recs[0].Decode()
		if ss := b.(*events.SessionStarted); ss.Parent != nil && ss.Parent.Name == name {
			return recs
		}
	}
	t.Fatalf("no child %s", name)
	return nil
}

// lastTransition returns the event and cause of a call's last move.
func lastTransition(t *testing.T, recs []events.Record, call string) string {
	t.Helper()
	last := ""
	for _, r := range recs {
		if r.Kind != events.KindTransition {
			continue
		}
		b, _ := r.Decode()
		if tr := b.(*events.Transition); tr.CallID == call {
			last = tr.Event + ":" + tr.Cause
		}
	}
	return last
}

// TestSubagentTreeStopsTogether: cancelling the parent's turn or passing its
// deadline stops every child, running or waiting for an answer: each
// child's call is interrupted through its own state machine with the same
// cause, the parent's spawn calls too, and no child command runs after.
func TestSubagentTreeStopsTogether(t *testing.T) {
	t.Parallel()
	lines := strings.Join([]string{
		`{"output":[{"type":"function_call","call_id":"p1","name":"spawn_agent","arguments":{"prompt":"a","name":"a"}},` +
			`{"type":"function_call","call_id":"p2","name":"spawn_agent","arguments":{"prompt":"b","name":"b"}}]}`,
		`{"output":[{"type":"message","content":"never"}]}`,
		`{"agent":"a","output":[{"type":"function_call","call_id":"x1","name":"shell","arguments":{"command":["bash","-c","sleep 30"]}}]}`,
		`{"agent":"a","output":[{"type":"message","content":"a"}]}`,
		`{"agent":"b","output":[{"type":"function_call","call_id":"y1","name":"shell","arguments":{"command":["rm","-rf","x"]}}]}`,
		`{"agent":"b","output":[{"type":"message","content":"b"}]}`,
	}, "\n")
	for _, tc := range []struct {
		name, cause string
		stop        func(context.Context) (context.Context, func(), func())
	}{
		{"the operator cancels", "cancelled", func(ctx context.Context) (context.Context, func(), func()) {
			ctx, cancel := context.WithCancel(ctx)
			return ctx, cancel, cancel
		}},
		{"the deadline passes", "deadline", func(ctx context.Context) (context.Context, func(), func()) {
			d := newDeadline(ctx)
			return d, d.pass, func() {}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sm, err := script.Parse("tree.jsonl", []byte(lines))
			if err != nil {
				t.Fatal(err)
			}
			host := &memHost{logs: map[string]*enginetest.MemLog{}, script: sm}
			running, asked := make(chan struct{}), make(chan struct{})
			runner := &enginetest.FakeRunner{Outcome: func(ctx context.Context, req engine.RunRequest) (events.ExecOutcome, error) {
				close(running)
				<-ctx.Done()
				return events.ExecOutcome{}, ctx.Err()
			}}
			appr := &enginetest.ScriptedApprover{Answers: []events.ReviewDecision{enginetest.Wait}}
			obs := observerFunc(func(n engine.Notice) {
				if n.Type == engine.NoticeApproval {
					close(asked)
				}
			})
			// b's call is asked about (on-request: rm is dangerous), a's runs.
			log := &enginetest.MemLog{}
			s, err := engine.Start(engine.Config{SessionID: "01a213dd-3096-70c1-ad19-4f6160183b4f", Cwd: t.TempDir(),
				Session: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"},
				Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite},
				Model:   sm, Approver: appr, Runner: runner, Observer: obs, Agents: host,
				Tools: []engine.Tool{engine.ShellTool{}, engine.SpawnAgentTool{}}}, log)
			if err != nil {
				t.Fatal(err)
			}
			ctx, fire, release := tc.stop(context.Background())
			defer release()
			go func() { <-running; <-asked; fire() }()
			res, err := s.Turn(ctx, "go")
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != events.TurnAborted {
				t.Errorf("parent turn %s, want aborted", res.Status)
			}
			if got := lastTransition(t, host.child(t, "a"), "x1"); got != "interrupt:"+tc.cause {
				t.Errorf("a's running call ended %s", got)
			}
			if got := lastTransition(t, host.child(t, "b"), "y1"); got != "interrupt:"+tc.cause {
				t.Errorf("b's pending call ended %s", got)
			}
			for _, c := range []string{"p1", "p2"} {
				if got := lastTransition(t, log.Records(), c); got != "interrupt:"+tc.cause {
					t.Errorf("parent call %s ended %s", c, got)
				}
			}
			if n := len(runner.Runs()); n != 1 {
				t.Errorf("%d runs, want only a's (b's call was never approved)", n)
			}
		})
	}
}

// The bound on children counts spawn_agent calls in call order when a
// response is accepted, so of three parallel calls under a bound of two the
// third is refused, whichever runs first, and replay refuses the same one.
func TestSubagentCountBoundIsInCallOrder(t *testing.T) {
	t.Parallel()
	spawn := func(id string) string {
		return `{"type":"function_call","call_id":"` + id + `","name":"spawn_agent","arguments":{"prompt":"p","name":"n` + id + `"}}`
	}
	lines := strings.Join([]string{
		`{"output":[` + spawn("p1") + `,` + spawn("p2") + `,` + spawn("p3") + `]}`,
		`{"output":[{"type":"message","content":"done"}]}`,
		`{"agent":"np1","output":[{"type":"message","content":"one"}]}`,
		`{"agent":"np2","output":[{"type":"message","content":"two"}]}`,
		`{"agent":"np3","output":[{"type":"message","content":"three"}]}`,
	}, "\n")
	sm, err := script.Parse("count.jsonl", []byte(lines))
	if err != nil {
		t.Fatal(err)
	}
	host := &memHost{logs: map[string]*enginetest.MemLog{}, script: sm}
	log := &enginetest.MemLog{}
	s, err := engine.Start(engine.Config{SessionID: "01a213dd-3096-70c1-ad19-4f6160183b4f", Cwd: t.TempDir(),
		Session: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write", SubagentMaxChildren: 2},
		Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite},
		Model:   sm, Approver: &enginetest.ScriptedApprover{}, Runner: &enginetest.FakeRunner{}, Agents: host,
		Tools: []engine.Tool{engine.ShellTool{}, engine.SpawnAgentTool{}}}, log)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Turn(context.Background(), "go"); err != nil || res.Status != events.TurnCompleted {
		t.Fatalf("%+v %v", res, err)
	}
	outs := map[string]string{}
	for _, r := range log.Records() {
		if r.Kind == events.KindToolOutput {
			b, _ := r.Decode()
			o := b.(*events.ToolOutput)
			outs[o.CallID] = o.Output
		}
	}
	if outs["p1"] != "one" || outs["p2"] != "two" || !strings.Contains(outs["p3"], "subagents.max_children is 2") {
		t.Errorf("outputs %v: want p1 and p2 answered by their children, p3 refused", outs)
	}
	if len(host.logs) != 2 {
		t.Errorf("%d children started, want 2", len(host.logs))
	}
}

// approverFunc adapts a function to engine.Approver.
type approverFunc func(context.Context, engine.ApprovalRequest) (engine.Answer, error)

func (f approverFunc) Decide(ctx context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
	return f(ctx, req)
}

// The user's "abort" on one of the parent's own calls stops a subagent
// running beside it: the child's running call is interrupted as the user's
// abort (user_abort), through its own state machine, and so is the spawn
// call; the parent's prompt did not wait for the child's turn to end.
func TestUserAbortInParentStopsRunningChild(t *testing.T) {
	t.Parallel()
	lines := strings.Join([]string{
		`{"output":[{"type":"function_call","call_id":"p1","name":"spawn_agent","arguments":{"prompt":"a","name":"a"}},` +
			`{"type":"function_call","call_id":"c2","name":"shell","arguments":{"command":["rm","-rf","build"]}}]}`,
		`{"output":[{"type":"message","content":"never"}]}`,
		`{"agent":"a","output":[{"type":"function_call","call_id":"x1","name":"shell","arguments":{"command":["bash","-c","sleep 30"]}}]}`,
		`{"agent":"a","output":[{"type":"message","content":"a"}]}`,
	}, "\n")
	sm, err := script.Parse("abort.jsonl", []byte(lines))
	if err != nil {
		t.Fatal(err)
	}
	host := &memHost{logs: map[string]*enginetest.MemLog{}, script: sm}
	running := make(chan struct{})
	runner := &enginetest.FakeRunner{Outcome: func(ctx context.Context, req engine.RunRequest) (events.ExecOutcome, error) {
		close(running)
		<-ctx.Done()
		return events.ExecOutcome{}, ctx.Err()
	}}
	appr := approverFunc(func(ctx context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
		if req.Agent != "" || req.CallID != "c2" {
			return engine.Answer{}, fmt.Errorf("asked about %s/%s", req.Agent, req.CallID)
		}
		select {
		case <-running:
		case <-ctx.Done():
			return engine.Answer{}, ctx.Err()
		}
		return engine.Answer{Decision: events.Abort, Source: events.SourceUser}, nil
	})
	log := &enginetest.MemLog{}
	s, err := engine.Start(engine.Config{SessionID: "01a213dd-3096-70c1-ad19-4f6160183b4f", Cwd: t.TempDir(),
		Session: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"},
		Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite},
		Model:   sm, Approver: appr, Runner: runner, Agents: host,
		Tools: []engine.Tool{engine.ShellTool{}, engine.SpawnAgentTool{}}}, log)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Turn(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != events.TurnAborted {
		t.Errorf("turn %s, want aborted", res.Status)
	}
	if got := lastTransition(t, host.child(t, "a"), "x1"); got != "interrupt:user_abort" {
		t.Errorf("the child's running call ended %s, want interrupt:user_abort", got)
	}
	if got := lastTransition(t, log.Records(), "p1"); got != "interrupt:user_abort" {
		t.Errorf("the spawn call ended %s", got)
	}
	if got := lastTransition(t, log.Records(), "c2"); got != "finish:user_abort" {
		t.Errorf("the aborted call ended %s", got)
	}
}

// A subagent inherits the prefix rules the user saved during its parent's
// session: the child's same command is allowed by the rule without a prompt.
func TestSubagentInheritsSavedRules(t *testing.T) {
	t.Parallel()
	lines := strings.Join([]string{
		`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":{"command":["touch","x"]}}]}`,
		`{"output":[{"type":"function_call","call_id":"p1","name":"spawn_agent","arguments":{"prompt":"a","name":"a"}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`,
		`{"agent":"a","output":[{"type":"function_call","call_id":"x1","name":"shell","arguments":{"command":["touch","x"]}}]}`,
		`{"agent":"a","output":[{"type":"message","content":"a done"}]}`,
	}, "\n")
	sm, err := script.Parse("rules.jsonl", []byte(lines))
	if err != nil {
		t.Fatal(err)
	}
	host := &memHost{logs: map[string]*enginetest.MemLog{}, script: sm}
	appr := &enginetest.ScriptedApprover{Answers: []events.ReviewDecision{events.ApprovedExecpolicyAmendment}}
	s, err := engine.Start(engine.Config{SessionID: "01a213dd-3096-70c1-ad19-4f6160183b4f", Cwd: t.TempDir(),
		Session: events.SessionConfig{ApprovalPolicy: "untrusted", SandboxMode: "workspace-write"},
		Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite}, Amender: engine.NoopAmender{},
		Model: sm, Approver: appr, Runner: &enginetest.FakeRunner{}, Agents: host,
		Tools: []engine.Tool{engine.ShellTool{}, engine.SpawnAgentTool{}}}, &enginetest.MemLog{})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Turn(context.Background(), "go"); err != nil || res.Status != events.TurnCompleted {
		t.Fatalf("%+v %v", res, err)
	}
	if n := len(appr.Asked()); n != 1 {
		t.Errorf("asked %d times, want once (the parent's c1; the child's x1 is allowed by the saved rule)", n)
	}
	recs := host.child(t, "a")
	b, _ := recs[0].Decode()
	if ss := b.(*events.SessionStarted); len(ss.Parent.AllowRules) != 1 {
		t.Errorf("the child's session_started does not record the inherited rule: %+v", ss.Parent)
	}
	if got := lastTransition(t, recs, "x1"); got != "finish:completed" {
		t.Errorf("x1 ended %s", got)
	}
}
