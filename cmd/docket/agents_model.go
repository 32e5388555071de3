package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/docket-engine/docket/cmd/docket/internal/consensus"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// The ids of the responses Docket itself gives in place of the model in a
// `docket agents run` session, so the journal and the audit tell them from
// the model's; both begin with session.OwnResponsePrefix, so a resume does
// not skip a scripted model's line for them.
const (
	agentsDispatchID = "docket-agents-dispatch"
	agentsNoQuorumID = "docket-agents-no-quorum"
	// agentsCallPrefix starts the call id of each agent's run_agent call.
	agentsCallPrefix = "agents-"
)

// agentsModel drives a `docket agents run` session. Its first answer is
// Docket's own: one run_agent call per agent, so that every agent runs as
// a tool call through the state machine (approval, sandbox, write-ahead,
// deadline) and in parallel. When the outputs come back it builds the
// consensus; if the quorum was met the configured model writes the
// synthesis, otherwise Docket ends the turn itself without asking it. Both
// of Docket's answers are journaled as model responses like any other, so
// replay feeds them back as recorded.
type agentsModel struct {
	inner  model.Model
	agents []string
	prompt string
	quorum int

	mu     sync.Mutex
	report *consensus.Report
}

// Respond dispatches the agents, or judges their outputs and asks the
// configured model for the synthesis.
func (m *agentsModel) Respond(ctx context.Context, req model.Request, onDelta func(model.Delta)) (model.Response, error) {
	results, asked := m.results(req.Items)
	if !asked {
		if m.prompt == "" {
			m.prompt = promptOfTurn(req.Items)
		}
		return m.dispatch(), nil
	}
	// Only the request that carries the agents' outputs is judged; later
	// requests (the synthesis model's own tool calls, a next turn) are the
	// configured model's.
	last := req.Items[len(req.Items)-1]
	if last.Type != events.ItemFunctionCallOutput || !strings.HasPrefix(last.CallID, agentsCallPrefix) {
		return m.inner.Respond(ctx, req, onDelta)
	}
	if m.prompt == "" {
		m.prompt = promptOfCalls(req.Items)
	}
	r := consensus.Build(m.prompt, m.quorum, results)
	m.mu.Lock()
	m.report = &r
	m.mu.Unlock()
	if !r.Valid {
		text := "No synthesis: " + r.Error
		return model.Response{ID: agentsNoQuorumID, Attempts: 1,
			Items: []events.Item{{Type: events.ItemMessage, Role: "assistant", Text: text}}}, nil
	}
	return m.inner.Respond(ctx, req, onDelta)
}

func (m *agentsModel) dispatch() model.Response {
	items := make([]events.Item, 0, len(m.agents))
	for _, name := range m.agents {
		args, _ := json.Marshal(engine.AgentArgs{Agent: name, Prompt: m.prompt})
		items = append(items, events.Item{Type: events.ItemFunctionCall, CallID: agentsCallPrefix + name,
			Name: engine.AgentToolName, Arguments: string(args)})
	}
	return model.Response{ID: agentsDispatchID, Items: items, Attempts: 1}
}

// results reads the agents' outputs from the conversation: each is the
// run_agent output JSON, or, for a call that never ran (declined, refused
// by the sandbox check, interrupted), the engine's words, as a failure.
func (m *agentsModel) results(items []events.Item) ([]engine.AgentResult, bool) {
	outputs := map[string]string{}
	asked := false
	for _, it := range items {
		switch {
		case it.Type == events.ItemFunctionCall && strings.HasPrefix(it.CallID, agentsCallPrefix):
			asked = true
		case it.Type == events.ItemFunctionCallOutput && strings.HasPrefix(it.CallID, agentsCallPrefix):
			if _, seen := outputs[it.CallID]; !seen {
				outputs[it.CallID] = it.Output
			}
		}
	}
	if !asked {
		return nil, false
	}
	out := make([]engine.AgentResult, 0, len(m.agents))
	for _, name := range m.agents {
		out = append(out, agentResultFromOutput(name, outputs[agentsCallPrefix+name]))
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
		why = why[:300] + "..."
	}
	return engine.AgentResult{Agent: name, Status: engine.AgentFailed, ExitCode: -1, Error: why}
}

// Report is the consensus built when the outputs came back; nil when the
// turn ended before (parked, failed, interrupted).
func (m *agentsModel) Report() *consensus.Report {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.report
}

// The settings an agents run records in session_started, so that the audit
// names them and a resume applies the same quorum.
const (
	agentsSettingAgents = "agents_run.agents"
	agentsSettingQuorum = "agents_run.quorum"
)

// agentsRunSettings are an agents run's recorded settings.
func agentsRunSettings(agents []string, quorum int) []events.Setting {
	b, _ := json.Marshal(agents) // a JSON array of strings is also TOML
	return []events.Setting{{Key: agentsSettingAgents, Value: string(b)}, {Key: agentsSettingQuorum, Value: strconv.Itoa(quorum)}}
}

// parseAgentsRunSettings reads them back; ok is false for a session that
// is not an agents run or recorded them differently.
func parseAgentsRunSettings(settings []events.Setting) (agents []string, quorum int, ok bool) {
	var haveAgents, haveQuorum bool
	for _, st := range settings {
		switch st.Key {
		case agentsSettingAgents:
			haveAgents = json.Unmarshal([]byte(st.Value), &agents) == nil && len(agents) > 0
		case agentsSettingQuorum:
			n, err := strconv.Atoi(st.Value)
			quorum, haveQuorum = n, err == nil && n >= 1
		}
	}
	return agents, quorum, haveAgents && haveQuorum && quorum <= len(agents)
}

// verdict fails a resumed agents run whose quorum was not met (exit 1,
// naming the agents that failed); nil for another session or a valid one.
func (m *agentsModel) verdict(res engine.TurnResult) error {
	if m == nil || res.Status == events.TurnParked {
		return nil
	}
	if r := m.Report(); r != nil && !r.Valid {
		return &exitError{code: exitFailed, err: fmt.Errorf("consensus not valid: %s", r.Error)}
	}
	return nil
}

// promptOfTurn recovers the agents' prompt from the journaled user turn
// (agentsTurnText), for a resumed session whose dispatch was not recorded.
func promptOfTurn(items []events.Item) string {
	for i := len(items) - 1; i >= 0; i-- {
		if it := items[i]; it.Type == events.ItemMessage && it.Role == "user" {
			if _, p, ok := strings.Cut(it.Text, agentsPromptMark); ok {
				return p
			}
		}
	}
	return ""
}

// promptOfCalls recovers it from the recorded run_agent calls.
func promptOfCalls(items []events.Item) string {
	for _, it := range items {
		if it.Type == events.ItemFunctionCall && strings.HasPrefix(it.CallID, agentsCallPrefix) {
			var a engine.AgentArgs
			if json.Unmarshal([]byte(it.Arguments), &a) == nil {
				return a.Prompt
			}
		}
	}
	return ""
}
