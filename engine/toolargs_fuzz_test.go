package engine

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine/mcp"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
)

// fuzzedTools are the function tools whose arguments the model writes,
// besides shell and write_stdin (FuzzShellArguments,
// FuzzWriteStdinArguments): the fuzzer's first byte picks one.
func fuzzedTools() []Tool {
	return []Tool{
		ExecCommandTool{},
		ShellCommandTool{},
		SpawnAgentTool{},
		AgentTool{Agents: []events.AgentInfo{{Name: "claude", Command: "claude", Args: []string{"-p", "{prompt}"}, Format: "text"}}},
		MCPTool{T: mcp.Tool{Qualified: "mcp__fs__read", Server: "fs", Name: "read", Approval: "auto"}},
		ApplyPatchTool{},
	}
}

// FuzzToolArguments feeds any argument text to the Prepare of exec_command,
// shell_command, spawn_agent, run_agent, an MCP tool and apply_patch's
// function form: each answers with an error that says something, or a
// call that is well formed for what runs it: a command without NUL bytes,
// a clean absolute working directory, at least one approval key for a
// command, a subagent no wider than its parent, MCP arguments that are a
// JSON object (or null, taken as {}).
func FuzzToolArguments(f *testing.F) {
	for _, s := range []struct {
		tool    uint8
		payload string
	}{
		{0, `{"cmd":"ls -la","workdir":"sub","yield_time_ms":500,"max_output_tokens":100,"tty":true}`},
		{0, `{"cmd":"ls","shell":"/bin/zsh","login":false,"sandbox_permissions":"require_escalated","justification":"x","prefix_rule":["ls"]}`},
		{0, `{"cmd":"a\u0000b"}`},
		{0, `{"cmd":"ls","workdir":"../../.."}`},
		{0, `{"cmd":"ls","yield_time_ms":1e309}`},
		{1, `{"command":"echo hi","workdir":"/tmp","timeout_ms":5}`},
		{1, `{"command":"echo hi","login":false,"sandbox_permissions":"require_escalated"}`},
		{2, `{"prompt":"do x","name":"kid","approval_policy":"untrusted","sandbox_mode":"read-only","network_access":false}`},
		{2, `{"prompt":"do x","approval_policy":"never","sandbox_mode":"danger-full-access","network_access":true}`},
		{2, `{"prompt":"do x","name":"../x"}`},
		{3, `{"agent":"claude","prompt":"review"}`},
		{3, `{"agent":"claude","prompt":"-rf /"}`},
		{3, `{"agent":"nobody","prompt":"x"}`},
		{4, `{"path":"/etc/passwd"}`},
		{4, `null`},
		{4, `[1]`},
		{4, ``},
		{5, `{"input":"*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"}`},
		{5, `{"input":"*** Begin Patch\n*** Update File: ../../etc/passwd\n@@\n-a\n+b\n*** End Patch"}`},
		{5, `{"input":null}`},
	} {
		f.Add(s.tool, s.payload)
	}
	cwd := f.TempDir()
	parent := events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write", WritableRoots: []string{cwd}}
	plan := events.SandboxPlan{Mode: "workspace-write", WritableRoots: []string{cwd}}
	d, err := NewDecider(parent, cwd, plan, nil, f.TempDir(), nil)
	if err != nil {
		f.Fatal(err)
	}
	env := &Env{Cwd: cwd, Config: parent, Plan: plan, Decider: d, SessionID: "s", Agents: AgentLimits{Ordinal: func(string) int { return 1 }},
		RealPath: func(_, p string) string { return p }}
	tools := fuzzedTools()
	f.Fuzz(func(t *testing.T, which uint8, payload string) {
		if len(payload) > 1<<16 {
			return
		}
		tool := tools[int(which)%len(tools)]
		name := tool.Spec().Name
		p, err := tool.Prepare(Call{ID: "c1", Name: name, Kind: model.ToolFunction, Payload: payload}, env)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("%s: an empty error", name)
			}
			return
		}
		for _, a := range p.Command {
			if strings.IndexByte(a, 0) >= 0 {
				t.Fatalf("%s: accepted a NUL byte from %q", name, payload)
			}
		}
		if p.Cwd != "" && (!filepath.IsAbs(p.Cwd) || filepath.Clean(p.Cwd) != p.Cwd) {
			t.Fatalf("%s: working directory %q", name, p.Cwd)
		}
		if len(p.Command) > 0 && len(p.Keys) == 0 && p.Requirement.Kind != policy.Skip {
			t.Fatalf("%s: a command without an approval key", name)
		}
		switch tool.(type) {
		case ExecCommandTool:
			if len(p.Command) != 3 || !slices.Contains([]string{"bash", "sh", "zsh"}, p.Command[0]) || strings.TrimSpace(p.Command[2]) == "" {
				t.Fatalf("exec_command: argv %q", p.Command)
			}
			if pc := p.Start.Process; pc == nil || pc.YieldMs < yieldMinMs || pc.YieldMs > yieldMaxMs || pc.MaxOutputTokens < 0 || pc.MaxOutputTokens > MaxOutputTokensCap {
				t.Fatalf("exec_command: process %+v out of bounds", p.Start.Process)
			}
		case SpawnAgentTool:
			checkNarrower(t, parent, plan, p.Start)
		case MCPTool:
			// null is taken as {} when the call is made (mcp.Manager.Call).
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(p.Arguments), &obj); err != nil || (obj == nil && p.Arguments != "null") {
				t.Fatalf("MCP arguments %q are not a JSON object", p.Arguments)
			}
		}
	})
}

// checkNarrower fails unless a subagent's configuration and plan are no
// wider than its parent's.
func checkNarrower(t *testing.T, parent events.SessionConfig, plan events.SandboxPlan, st events.ExecStarted) {
	t.Helper()
	if st.Agent == nil {
		t.Fatal("spawn_agent: no child recorded")
	}
	sc := st.Agent.Config
	have, _ := policy.ParseApprovalPolicy(parent.ApprovalPolicy)
	want, err := policy.ParseApprovalPolicy(sc.ApprovalPolicy)
	if err != nil || approvalStrictness[want] < approvalStrictness[have] {
		t.Fatalf("spawn_agent: approval %q under a parent's %q", sc.ApprovalPolicy, parent.ApprovalPolicy)
	}
	haveS, _ := policy.ParseSandboxMode(parent.SandboxMode)
	wantS, err := policy.ParseSandboxMode(sc.SandboxMode)
	if err != nil || sandboxStrictness[wantS] < sandboxStrictness[haveS] {
		t.Fatalf("spawn_agent: sandbox %q under a parent's %q", sc.SandboxMode, parent.SandboxMode)
	}
	if sc.NetworkAccess && !parent.NetworkAccess {
		t.Fatal("spawn_agent: a child with network under a parent without")
	}
	for _, r := range st.Sandbox.WritableRoots {
		if !slices.Contains(plan.WritableRoots, r) {
			t.Fatalf("spawn_agent: a child may write %s, its parent may not", r)
		}
	}
}
