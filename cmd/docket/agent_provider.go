package main

import (
	"time"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/consensus"
	"github.com/docket-engine/docket/engine/model/agentcli"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/session"
)

// agentProvider is model_provider = "agent:NAME": the [agents.NAME] CLI
// answers each model request (config validation has checked the agent
// exists). It runs in the workspace the configuration was loaded for.
func agentProvider(cfg *config.Config, name string) *agentcli.Provider {
	ag := cfg.Agents[name]
	timeout := ag.AgentTimeoutMs()
	if timeout <= 0 {
		timeout = engine.DefaultAgentTimeoutMs
	}
	var env []string
	for _, k := range slicesSortedKeys(ag.Env) {
		env = append(env, k+"="+ag.Env[k])
	}
	return &agentcli.Provider{Name: name, Command: ag.Command, Args: ag.Args, Env: env, Dir: cfg.ProjectDir,
		Timeout: time.Duration(timeout) * time.Millisecond, Format: ag.FormatOrDefault()}
}

// resumeAgents gives a resumed `docket agents run` session its run_agent
// tool back, as recorded (replay does the same), with the agents' env from
// the current configuration, so a parked agent call can run; and, when the
// session recorded its agents and quorum, the agents run's model, so the
// quorum still decides whether the synthesis is asked for. It returns that
// model, or nil for any other session.
func resumeAgents(w *wiring, cfg *config.Config, rec session.Recorded) *consensus.Model {
	ss := rec.Started
	found := false
	for _, t := range ss.Tools {
		if t.Name != engine.AgentToolName || len(t.Agents) == 0 {
			continue
		}
		found = true
		w.opts.Tools = append(w.opts.Tools, engine.AgentToolFromInfo(t))
		names := make([]string, 0, len(t.Agents))
		for _, a := range t.Agents {
			if _, ok := cfg.Agents[a.Name]; ok {
				names = append(names, a.Name)
			}
		}
		_, w.opts.AgentEnv = agentInfos(cfg, names)
	}
	agents, quorum, ok := parseAgentsRunSettings(ss.Settings)
	if !found || !ok {
		return nil
	}
	// session.Resume skips a scripted model past the lines already
	// journaled, but sees only the agents run's model around it.
	if sm, ok := w.opts.Model.(*script.Model); ok {
		sm.Skip(rec.ModelResponses)
		sm.SkipCompactions(rec.Compactions)
	}
	am := &consensus.Model{Inner: w.opts.Model, Agents: agents, Quorum: quorum}
	w.opts.Model = am
	return am
}
