package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/docket-engine/docket/engine/agentout"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// AgentToolName is the name of the tool that starts an external agent CLI.
const AgentToolName = "run_agent"

// AgentPromptPlaceholder in an agent's args is replaced by the prompt; an
// agent whose args do not contain it gets the prompt as its last argument.
const AgentPromptPlaceholder = "{prompt}"

// DefaultAgentTimeoutMs is an agent's deadline when its config gives none.
const DefaultAgentTimeoutMs = 300_000

// maxAgentAnswerBytes bounds the answer of one agent as the model and the
// consensus see it; the whole capture stays in exec_outcome.
const maxAgentAnswerBytes = 64 * 1024

// AgentTool starts external agent CLIs (claude, gemini, codex, ...) as tool
// calls: each run is a process under the session's sandbox plan, with the
// agent's deadline as its time-out, so approval, write-ahead, time-out
// (the sandbox kills the whole process tree) and journaling are the shell
// tool's. The agent's own tool calls happen inside that process and are not
// Docket's calls.
type AgentTool struct {
	// Agents are the configured agents, by name.
	Agents []events.AgentInfo
}

// AgentToolFromInfo rebuilds the tool from a session_started record, so a
// replay can route and decide without the configuration.
func AgentToolFromInfo(info events.ToolInfo) AgentTool {
	return AgentTool{Agents: slices.Clone(info.Agents)}
}

// Spec describes the tool to the model.
func (t AgentTool) Spec() model.ToolSpec {
	names := make([]string, 0, len(t.Agents))
	for _, a := range t.Agents {
		names = append(names, a.Name)
	}
	enum, _ := json.Marshal(names)
	return model.ToolSpec{
		Name:        AgentToolName,
		Kind:        model.ToolFunction,
		Description: "Asks an external agent CLI a prompt and returns its final answer as JSON {agent, status, answer, error}.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"agent":{"type":"string","enum":` + string(enum) + `},` +
			`"prompt":{"type":"string"}},"required":["agent","prompt"],"additionalProperties":false}`),
	}
}

// ParallelSafe: agents run side by side (that is the point).
func (AgentTool) ParallelSafe() bool { return true }

// Info records the tool and its agents in session_started.
func (t AgentTool) Info() events.ToolInfo {
	s := t.Spec()
	return events.ToolInfo{Name: s.Name, Kind: s.Kind.String(), ParallelSafe: true, Description: s.Description,
		Schema: string(s.Parameters), Agents: slices.Clone(t.Agents)}
}

// Agent returns the agent of that name.
func (t AgentTool) Agent(name string) (events.AgentInfo, bool) {
	for _, a := range t.Agents {
		if a.Name == name {
			return a, true
		}
	}
	return events.AgentInfo{}, false
}

// AgentArgs are run_agent's arguments.
type AgentArgs struct {
	Agent  string `json:"agent"`
	Prompt string `json:"prompt"`
}

// AgentArgv is the command line that asks an agent a prompt.
func AgentArgv(a events.AgentInfo, prompt string) []string {
	argv := []string{a.Command}
	placed := false
	for _, arg := range a.Args {
		if strings.Contains(arg, AgentPromptPlaceholder) {
			arg = strings.ReplaceAll(arg, AgentPromptPlaceholder, prompt)
			placed = true
		}
		argv = append(argv, arg)
	}
	if !placed {
		argv = append(argv, prompt)
	}
	return argv
}

// Prepare validates the arguments and decides as for a shell command: the
// agent's command line is what is approved, keyed and sandboxed.
func (t AgentTool) Prepare(c Call, env *Env) (*PreparedCall, error) {
	if c.Kind != model.ToolFunction {
		return nil, fmt.Errorf("%s is a function tool; it was called as a %s tool", AgentToolName, c.Kind)
	}
	var a AgentArgs
	dec := json.NewDecoder(strings.NewReader(c.Payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("arguments are not valid %s arguments: %w", AgentToolName, err)
	}
	if dec.More() {
		return nil, errors.New("arguments hold more than one JSON value")
	}
	agent, ok := t.Agent(a.Agent)
	if !ok {
		names := make([]string, 0, len(t.Agents))
		for _, x := range t.Agents {
			names = append(names, x.Name)
		}
		return nil, fmt.Errorf("agent %q is not configured (configured: %s)", a.Agent, strings.Join(names, ", "))
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return nil, errors.New("prompt is empty")
	}
	if strings.IndexByte(a.Prompt, 0) >= 0 {
		return nil, errors.New("prompt contains a NUL byte")
	}
	argv := AgentArgv(agent, a.Prompt)
	timeout := agent.TimeoutMs
	if timeout <= 0 {
		timeout = DefaultAgentTimeoutMs
	}
	req := env.Decider.ExecRequirement(argv, false, "")
	format := agent.Format
	return &PreparedCall{
		ApprovalKind: events.ApprovalExec,
		Command:      argv,
		Cwd:          env.Cwd,
		Keys:         []string{env.Decider.ExecKey(argv, env.Cwd, "")},
		Requirement:  req,
		// An agent that the sandbox stops is reported, never re-run
		// without the sandbox behind the operator's back.
		Retryable: false,
		Start:     events.ExecStarted{Tool: AgentToolName, Argv: argv, Cwd: env.Cwd, TimeoutMs: timeout, Input: agent.Name},
		Shape: func(o events.ExecOutcome) (string, bool) {
			r := AgentResultOf(agent.Name, format, o)
			b, _ := json.Marshal(r)
			return string(b), r.Status == AgentFinished
		},
	}, nil
}

// The statuses of one agent's run.
const (
	AgentFinished = "finished"
	AgentFailed   = "failed"
	AgentTimedOut = "timed_out"
)

// AgentResult is one agent's run as the model and the consensus see it: the
// run_agent call's output, as JSON.
type AgentResult struct {
	Agent    string `json:"agent"`
	Status   string `json:"status"`
	ExitCode int    `json:"exit_code"`
	// Answer is the agent's final answer, parsed from its output format.
	Answer string `json:"answer"`
	// Error says why the run failed (empty when it finished).
	Error string `json:"error,omitempty"`
	// Truncated: the answer or the capture was cut short.
	Truncated bool `json:"truncated,omitempty"`
}

// AgentResultOf reads an agent's outcome: a zero exit with an answer and no
// error event is finished; a time-out is timed_out; anything else failed,
// with the reason.
func AgentResultOf(name, format string, o events.ExecOutcome) AgentResult {
	r := AgentResult{Agent: name, ExitCode: o.ExitCode, Truncated: o.Truncated}
	out := strings.ToValidUTF8(o.Output, "\uFFFD")
	answer, perr := agentout.Parse(format, out)
	if len(answer) > maxAgentAnswerBytes {
		answer = strings.ToValidUTF8(answer[:maxAgentAnswerBytes], "") + "\n[answer truncated]"
		r.Truncated = true
	}
	r.Answer = answer
	switch {
	case o.SandboxError != "":
		r.Status, r.Error = AgentFailed, "the sandbox could not be set up: "+o.SandboxError
	case o.Error != "":
		r.Status, r.Error = AgentFailed, "could not be started: "+o.Error
	case o.TimedOut:
		r.Status, r.Error = AgentTimedOut, fmt.Sprintf("no answer before its deadline (%.1f s); its processes were killed", float64(o.DurationNs)/1e9)
	case o.Signal != "":
		r.Status, r.Error = AgentFailed, "killed by signal "+o.Signal
	case o.ExitCode != 0:
		r.Status, r.Error = AgentFailed, fmt.Sprintf("exit code %d: %s", o.ExitCode, lastLine(out, perr))
	case perr != nil:
		r.Status, r.Error = AgentFailed, perr.Error()
	case strings.TrimSpace(answer) == "":
		r.Status, r.Error = AgentFailed, "it exited 0 but gave no answer"
	default:
		r.Status = AgentFinished
	}
	return r
}

// lastLine is what explains a failed run: the error the output format
// reported, else the output's last non-empty line.
func lastLine(out string, perr error) string {
	if perr != nil {
		return perr.Error()
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return "no output"
	}
	if len(last) > 300 {
		last = last[:300] + "..."
	}
	return last
}
