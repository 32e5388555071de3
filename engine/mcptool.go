package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/docket-engine/docket/engine/mcp"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
)

// MCPTool routes calls to one MCP server's tool by its recorded provenance
// (server, raw name), never by parsing the qualified name.
type MCPTool struct{ T mcp.Tool }

// MCPToolFromInfo rebuilds an MCP tool from a session_started record, so a
// replay can route and decide without the server.
func MCPToolFromInfo(info events.ToolInfo) MCPTool {
	t := mcp.Tool{Qualified: info.Name, Server: info.Server, Name: info.RawName, ReadOnly: info.ReadOnly,
		Destructive: info.Destructive, ParallelSafe: info.ParallelSafe, Approval: info.Approval, Description: info.Description}
	if info.Schema != "" {
		t.InputSchema = json.RawMessage(info.Schema)
	}
	return MCPTool{T: t}
}

// Spec is the tool as the model sees it.
func (m MCPTool) Spec() model.ToolSpec { return m.T.ToolSpec() }

// ParallelSafe follows the server's supports_parallel_tool_calls.
func (m MCPTool) ParallelSafe() bool { return m.T.ParallelSafe }

// Info records the tool's provenance in session_started.
func (m MCPTool) Info() events.ToolInfo {
	return events.ToolInfo{Name: m.T.Qualified, Kind: model.ToolFunction.String(), Server: m.T.Server, RawName: m.T.Name,
		ReadOnly: m.T.ReadOnly, Destructive: m.T.Destructive, Approval: m.T.Approval, ParallelSafe: m.T.ParallelSafe,
		Description: m.T.Description, Schema: string(m.T.InputSchema)}
}

// Prepare checks the arguments are a JSON object and decides approval from
// the server's approval setting and the tool's hints.
func (m MCPTool) Prepare(c Call, env *Env) (*PreparedCall, error) {
	args := bytes.TrimSpace([]byte(c.Payload))
	if len(args) == 0 {
		args = []byte("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return nil, errors.New("MCP tool arguments must be a JSON object: " + err.Error())
	}
	needs, reason := mcp.Requirement(m.T.Approval, m.T)
	req := env.Decider.MCPRequirement(needs, reason)
	return &PreparedCall{
		ApprovalKind: events.ApprovalMCP,
		Command:      []string{m.T.Qualified},
		Cwd:          env.Cwd,
		Keys:         []string{env.Decider.MCPKey(m.T.Server, m.T.Name)},
		Requirement:  req,
		OutOfProcess: true,
		Start:        events.ExecStarted{Tool: m.T.Qualified, Cwd: env.Cwd, Input: string(args), Server: m.T.Server, MCPTool: m.T.Name},
		Shape:        shapeMCP,
		Server:       m.T.Server, MCPTool: m.T.Name, Arguments: string(args),
	}, nil
}

func shapeMCP(o events.ExecOutcome) (string, bool) {
	if o.Output == "" && o.Error != "" {
		return "MCP call failed: " + o.Error, false
	}
	return o.Output, !o.IsError
}

// MCPManager adapts an mcp.Manager to the runner's MCPCaller.
type MCPManager struct{ M *mcp.Manager }

// CallTool calls the tool and turns the result into an outcome.
func (a MCPManager) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (events.ExecOutcome, error) {
	res, err := a.M.Call(ctx, server, tool, args)
	return mcp.Outcome(res, err), nil
}
