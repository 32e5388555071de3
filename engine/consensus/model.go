package consensus

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// The ids of the responses Docket itself gives in place of the model in a
// `docket agents run` session, so the journal and the audit tell them from
// the model's; both begin with session.OwnResponsePrefix, so a resume does
// not skip a scripted model's line for them.
const (
	DispatchID = "docket-agents-dispatch"
	NoQuorumID = "docket-agents-no-quorum"
	// CallPrefix starts the call id of each agent's run_agent call.
	CallPrefix = "agents-"
)

// Model drives a `docket agents run` session. Its first answer is
// Docket's own: one run_agent call per agent, so that every agent runs as
// a tool call through the state machine (approval, sandbox, write-ahead,
// deadline) and in parallel. When the outputs come back it builds the
// consensus; if the quorum was met the configured model writes the
// synthesis, otherwise Docket ends the turn itself without asking it. Both
// of Docket's answers are journaled as model responses like any other, so
// replay feeds them back as recorded.
type Model struct {
	// Inner is the configured model, which writes the synthesis.
	Inner model.Model
	// Agents are the agents asked, in order; Quorum how many must finish.
	Agents []string
	Quorum int
	// Prompt is what each agent is asked; empty recovers it from the
	// conversation (a resumed session).
	Prompt string

	mu     sync.Mutex
	report *Report
}

// Respond dispatches the agents, or judges their outputs and asks the
// configured model for the synthesis.
func (m *Model) Respond(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Response, error) {
	results, asked := m.results(req.Items)
	if !asked {
		if m.Prompt == "" {
			m.Prompt = promptOfTurn(req.Items)
		}
		return m.dispatch(), nil
	}
	// Only the request that carries the agents' outputs is judged; later
	// requests (the synthesis model's own tool calls, a next turn) are the
	// configured model's.
	last := req.Items[len(req.Items)-1]
	if last.Type != events.ItemFunctionCallOutput || !strings.HasPrefix(last.CallID, CallPrefix) {
		return m.Inner.Respond(ctx, req, onDelta)
	}
	if m.Prompt == "" {
		m.Prompt = promptOfCalls(req.Items)
	}
	r := Build(m.Prompt, m.Quorum, results)
	m.mu.Lock()
	m.report = &r
	m.mu.Unlock()
	if !r.Valid {
		text := "No synthesis: " + r.Error
		return model.Response{ID: NoQuorumID, Attempts: 1,
			Items: []events.Item{{Type: events.ItemMessage, Role: "assistant", Text: text}}}, nil
	}
	return m.Inner.Respond(ctx, req, onDelta)
}

func (m *Model) dispatch() model.Response {
	items := make([]events.Item, 0, len(m.Agents))
	for _, name := range m.Agents {
		args, _ := json.Marshal(engine.AgentArgs{Agent: name, Prompt: m.Prompt})
		items = append(items, events.Item{Type: events.ItemFunctionCall, CallID: CallPrefix + name,
			Name: engine.AgentToolName, Arguments: string(args)})
	}
	return model.Response{ID: DispatchID, Items: items, Attempts: 1}
}

// results reads the agents' outputs from the conversation: each is the
// run_agent output JSON, or, for a call that never ran (declined, refused
// by the sandbox check, interrupted), the engine's words, as a failure.
func (m *Model) results(items []events.Item) ([]engine.AgentResult, bool) {
	outputs := map[string]string{}
	asked := false
	for _, it := range items {
		switch {
		case it.Type == events.ItemFunctionCall && strings.HasPrefix(it.CallID, CallPrefix):
			asked = true
		case it.Type == events.ItemFunctionCallOutput && strings.HasPrefix(it.CallID, CallPrefix):
			if _, seen := outputs[it.CallID]; !seen {
				outputs[it.CallID] = it.Output
			}
		}
	}
	if !asked {
		return nil, false
	}
	out := make([]engine.AgentResult, 0, len(m.Agents))
	for _, name := range m.Agents {
		out = append(out, agentResultFromOutput(name, outputs[CallPrefix+name]))
	}
	return out, true
}

// agentResultFromOutput reads one run_agent output.
func agentResultFromOutput(name, output string) engine.AgentResult {
	var r engine.AgentResult
	if err := json.Unmarshal([]byte(output), &r); err == nil && r.Agent == name && r.Status != "" {
		return r
	}
	why := strings.TrimSpace(output)
	if why == "" {
		why = "it did not run"
	}
	if len(why) > 300 {
		n := 300
		for n > 0 && !utf8.RuneStart(why[n]) {
			n-- // a cut inside a character would leave bytes that are not text
		}
		why = why[:n] + "..."
	}
	return engine.AgentResult{Agent: name, Status: engine.AgentFailed, ExitCode: -1, Error: why}
}

// Report is the consensus built when the outputs came back; nil when the
// turn ended before (parked, failed, interrupted).
func (m *Model) Report() *Report {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.report
}

// promptOfTurn recovers the agents' prompt from the journaled user turn
// (agentsTurnText), for a resumed session whose dispatch was not recorded.
func promptOfTurn(items []events.Item) string {
	for i := len(items) - 1; i >= 0; i-- {
		if it := items[i]; it.Type == events.ItemMessage && it.Role == "user" {
			if _, p, ok := strings.Cut(it.Text, PromptMark); ok {
				return p
			}
		}
	}
	return ""
}

// promptOfCalls recovers it from the recorded run_agent calls.
func promptOfCalls(items []events.Item) string {
	for _, it := range items {
		if it.Type == events.ItemFunctionCall && strings.HasPrefix(it.CallID, CallPrefix) {
			var a engine.AgentArgs
			if json.Unmarshal([]byte(it.Arguments), &a) == nil {
				return a.Prompt
			}
		}
	}
	return ""
}

// PromptMark separates the instructions of an agents run's user turn from
// the agents' prompt.
const PromptMark = "\n\nPrompt:\n"

// TurnText is the user turn of an agents run: the instructions for the
// synthesis, then the agents' prompt after PromptMark.
func TurnText(names []string, prompt string) string {
	return fmt.Sprintf("docket agents run: the agents %s were each asked the prompt below; their answers are the %s outputs. "+
		"Write one synthesis: where they agree, where they disagree, and the best-supported answer.%s%s",
		strings.Join(names, ", "), engine.AgentToolName, PromptMark, prompt)
}
