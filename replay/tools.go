package replay

import (
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// defaultTools are the built-in tools plus, for every MCP tool the session
// offered, a stand-in with the recorded provenance: replay needs no server.
func defaultTools(ss events.SessionStarted) []engine.Tool {
	tools := []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}
	for _, t := range ss.Tools {
		if t.Server != "" {
			tools = append(tools, engine.MCPToolFromInfo(t))
		}
		if t.Server == "" && t.Name == engine.SpawnAgentName {
			tools = append(tools, engine.SpawnAgentTool{})
		}
	}
	return tools
}
