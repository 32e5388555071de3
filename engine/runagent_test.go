package engine_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
)

func agentEnvFor(t *testing.T, approval string) *engine.Env {
	t.Helper()
	sc := events.SessionConfig{ApprovalPolicy: approval, SandboxMode: "workspace-write"}
	plan := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, WritableRoots: []string{"/w"}, Network: true}
	d, err := engine.NewDecider(sc, "/w", plan, nil, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return &engine.Env{Cwd: "/w", Config: sc, Plan: plan, Decider: d}
}

func TestAgentToolPrepares(t *testing.T) {
	t.Parallel()
	tool := engine.AgentTool{Agents: []events.AgentInfo{
		{Name: "claude", Command: "claude", Args: []string{"-p", "{prompt}", "--output-format", "stream-json"}, TimeoutMs: 5000, Format: "stream-json"},
		{Name: "plain", Command: "ask", Format: "text"},
	}}
	call := func(args string) engine.Call {
		return engine.Call{ID: "c1", Name: engine.AgentToolName, Kind: model.ToolFunction, Payload: args}
	}
	for _, tc := range []struct {
		name, args, approval string
		argv                 string
		timeout              int64
		err                  string
		req                  policy.RequirementKind
	}{
		{"placeholder replaced", `{"agent":"claude","prompt":"hi there"}`, "on-request", "claude|-p|hi there|--output-format|stream-json", 5000, "", policy.Skip},
		{"prompt last without a placeholder; default deadline", `{"agent":"plain","prompt":"q"}`, "on-request", "ask|q", engine.DefaultAgentTimeoutMs, "", policy.Skip},
		{"untrusted asks for an agent", `{"agent":"plain","prompt":"q"}`, "untrusted", "ask|q", engine.DefaultAgentTimeoutMs, "", policy.NeedsApproval},
		{"unknown agent names the configured ones", `{"agent":"gemini","prompt":"q"}`, "on-request", "", 0, `"gemini" is not configured (configured: claude, plain)`, policy.Skip},
		{"empty prompt", `{"agent":"plain","prompt":"  "}`, "on-request", "", 0, "prompt is empty", policy.Skip},
		{"unknown field", `{"agent":"plain","prompt":"q","x":1}`, "on-request", "", 0, "not valid run_agent arguments", policy.Skip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tool.Prepare(call(tc.args), agentEnvFor(t, tc.approval))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(p.Start.Argv, "|"); got != tc.argv {
				t.Errorf("argv %q, want %q", got, tc.argv)
			}
			if p.Start.Tool != engine.AgentToolName || p.Start.TimeoutMs != tc.timeout || p.Retryable {
				t.Errorf("start %+v, retryable %v", p.Start, p.Retryable)
			}
			if p.Requirement.Kind != tc.req {
				t.Errorf("requirement %v, want %v", p.Requirement.Kind, tc.req)
			}
		})
	}
}

func TestAgentResultOfJudgesTheOutcome(t *testing.T) {
	t.Parallel()
	ok := `{"type":"result","is_error":false,"result":"42"}`
	for _, tc := range []struct {
		name    string
		o       events.ExecOutcome
		status  string
		errHas  string
		success bool
	}{
		{"answer and exit 0", events.ExecOutcome{Output: ok}, engine.AgentFinished, "", true},
		{"timed out, whatever it printed", events.ExecOutcome{Output: ok, TimedOut: true, ExitCode: 143, DurationNs: 1e9}, engine.AgentTimedOut, "deadline", false},
		{"error result with exit 0", events.ExecOutcome{Output: `{"type":"result","is_error":true,"result":"bad key"}`}, engine.AgentFailed, "bad key", false},
		{"exit 1 names the reason", events.ExecOutcome{Output: "boom\nquota exceeded\n", ExitCode: 1}, engine.AgentFailed, "exit code 1: quota exceeded", false},
		{"no answer", events.ExecOutcome{Output: `{"type":"system"}`}, engine.AgentFailed, "no answer", false},
		{"sandbox refused", events.ExecOutcome{SandboxError: "no landlock"}, engine.AgentFailed, "sandbox", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := engine.AgentResultOf("a", "stream-json", tc.o)
			if r.Status != tc.status || !strings.Contains(r.Error, tc.errHas) {
				t.Errorf("status %q error %q, want %q with %q", r.Status, r.Error, tc.status, tc.errHas)
			}
			tool := engine.AgentTool{Agents: []events.AgentInfo{{Name: "a", Command: "a", Format: "stream-json"}}}
			p, err := tool.Prepare(engine.Call{ID: "c", Name: engine.AgentToolName, Kind: model.ToolFunction, Payload: `{"agent":"a","prompt":"q"}`}, agentEnvFor(t, "never"))
			if err != nil {
				t.Fatal(err)
			}
			text, success := p.Shape(tc.o)
			var back engine.AgentResult
			if err := json.Unmarshal([]byte(text), &back); err != nil || back.Status != tc.status || success != tc.success {
				t.Errorf("shaped %q (success %v): %v", text, success, err)
			}
		})
	}
}
