package replay

import (
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// defaultTools are the built-in tools plus, for every MCP tool the session
// offered, a stand-in with the recorded provenance: replay needs no server;
// and the run_agent tool with its recorded agents (docket agents run).
func defaultTools(ss events.SessionStarted) []engine.Tool {
	tools := []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}
	for _, t := range ss.Tools {
		switch {
		case t.Server != "":
			tools = append(tools, engine.MCPToolFromInfo(t))
		case t.Name == engine.AgentToolName && len(t.Agents) > 0:
			tools = append(tools, engine.AgentToolFromInfo(t))
		}
		if t.Server == "" && t.Name == engine.SpawnAgentName {
			tools = append(tools, engine.SpawnAgentTool{})
		}
		if t.Server == "" {
			if tool, ok := engine.SurfaceTool(t.Name); ok {
				tools = append(tools, tool)
			}
		}
	}
	return tools
}
