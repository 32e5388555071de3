package main

import (
	"time"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/model/agentcli"
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
