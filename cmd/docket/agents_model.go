package main

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/consensus"
	"github.com/docket-engine/docket/events"
)

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
func agentsVerdict(m *consensus.Model, res engine.TurnResult) error {
	if m == nil || res.Status == events.TurnParked {
		return nil
	}
	if r := m.Report(); r != nil && !r.Valid {
		return &exitError{code: exitFailed, err: fmt.Errorf("consensus not valid: %s", r.Error)}
	}
	return nil
}
