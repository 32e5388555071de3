package hooks

import "github.com/docket-engine/docket/events"

// Call is what a hook is told about a tool call, marshalled as its stdin.
type Call struct {
	// Stage is "pre_tool" or "post_tool".
	Stage     events.HookStage `json:"stage"`
	SessionID string           `json:"session_id"`
	TurnID    string           `json:"turn_id,omitempty"`
	CallID    string           `json:"call_id"`
	// Tool is the name the model called ("shell", "apply_patch", an MCP
	// tool's qualified name).
	Tool string `json:"tool"`
	// Argv is the command (shell), empty for other tools.
	Argv []string `json:"argv,omitempty"`
	Cwd  string   `json:"cwd"`
	// Paths are the files an apply_patch call touches.
	Paths []string `json:"paths,omitempty"`
	// Server, MCPTool and Arguments describe an MCP call.
	Server    string `json:"server,omitempty"`
	MCPTool   string `json:"mcp_tool,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	// Policy is the session's approval policy and sandbox mode.
	ApprovalPolicy string `json:"approval_policy,omitempty"`
	SandboxMode    string `json:"sandbox_mode,omitempty"`
	// Outcome is set for post_tool hooks.
	Outcome *Outcome `json:"outcome,omitempty"`
	// Model is the session's model, told to a Codex-protocol hook only
	// (Docket's own stdin is unchanged).
	Model string `json:"-"`
}

// Outcome is what a post_tool hook is told of the call's run.
type Outcome struct {
	ExitCode   int    `json:"exit_code"`
	Signal     string `json:"signal,omitempty"`
	DurationMs int64  `json:"duration_ms"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	Output     string `json:"output,omitempty"`
	Error      string `json:"error,omitempty"`
	// Sandboxed says whether the last attempt ran under the sandbox.
	Sandboxed bool `json:"sandboxed"`
	// Denied: the sandbox refused something the command tried.
	Denied bool `json:"denied,omitempty"`
	// Success is how the call is reported to the model.
	Success bool `json:"success"`
}

// OutcomeOf shortens an exec outcome for a post_tool hook; output beyond
// maxOutput bytes is cut (the hook is told the head).
func OutcomeOf(o events.ExecOutcome, sandboxed, success bool, maxOutput int) *Outcome {
	out := o.Output
	if len(out) > maxOutput {
		out = out[:maxOutput]
	}
	return &Outcome{ExitCode: o.ExitCode, Signal: o.Signal, DurationMs: o.DurationNs / 1e6, TimedOut: o.TimedOut,
		Output: out, Error: firstNonEmpty(o.SandboxError, o.Error), Sandboxed: sandboxed, Denied: o.Denial != nil, Success: success}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
