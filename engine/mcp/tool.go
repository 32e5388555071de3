package mcp

import (
	"encoding/json"

	"github.com/docket-engine/docket/engine/model"
)

// Tool is one MCP tool as registered with the engine: its qualified name and
// the provenance (server, raw name) that calls are routed by.
type Tool struct {
	// Qualified is the name the model calls: mcp__<server>__<tool>, sanitized.
	Qualified string `json:"qualified"`
	// Server is the configured server name.
	Server string `json:"server"`
	// Name is the tool's raw name as the server lists it.
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// ReadOnly and Destructive are the tool's readOnlyHint and an explicit
	// destructiveHint = true; both are the server's claims, not guarantees.
	ReadOnly    bool `json:"read_only,omitempty"`
	Destructive bool `json:"destructive,omitempty"`
	// ParallelSafe is the server's supports_parallel_tool_calls.
	ParallelSafe bool `json:"parallel_safe,omitempty"`
	// Approval is the server's approval setting, defaulted to "auto".
	Approval string `json:"approval"`
}

// Ref is the tool's provenance.
func (t Tool) Ref() ToolRef { return ToolRef{Server: t.Server, Tool: t.Name} }

// emptySchema stands in for a tool that declares no input schema.
const emptySchema = `{"type":"object","properties":{}}`

// ToolSpec is the tool as the model sees it: a function tool named by the
// qualified name, with the server's input schema as parameters.
func (t Tool) ToolSpec() model.ToolSpec {
	params := t.InputSchema
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage(emptySchema)
	}
	return model.ToolSpec{
		Name:        t.Qualified,
		Description: t.Description,
		Kind:        model.ToolFunction,
		Parameters:  params,
	}
}
