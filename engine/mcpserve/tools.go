package mcpserve

import (
	"encoding/json"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/model"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AuditToolName is the tool that reads the audit of the client's session.
const AuditToolName = "audit"

// applyPatchSchema is apply_patch's input as an MCP tool: MCP tools take
// JSON objects, so the patch is one string argument (the engine's
// apply_patch accepts it so when called as a function tool).
const applyPatchSchema = `{"type":"object","properties":{"input":{"type":"string",` +
	`"description":"the patch: *** Begin Patch, file sections, *** End Patch"}},"required":["input"],"additionalProperties":false}`

// auditSchema is the audit tool's input.
const auditSchema = `{"type":"object","properties":{` +
	`"call_id":{"type":"string","description":"audit only this call"},` +
	`"unsandboxed_only":{"type":"boolean","description":"list only the calls that ran without a sandbox, each with why"},` +
	`"format":{"type":"string","enum":["text","json"],"description":"text (default, as docket audit prints) or json (as docket audit --json)"}},` +
	`"additionalProperties":false}`

// engineNote ends every engine tool's description: what a client should
// know that the model-facing description does not say.
const engineNote = " Docket decides, sandboxes and journals the call as a session's own; a call that needs approval " +
	"is asked through MCP elicitation, or parked (the result names the session and call to answer with docket resume) " +
	"when the client cannot be asked."

// engineTools are the MCP tools of the engine's built-in tools, named and
// shaped as the engine offers them to a model (Codex's names).
func engineTools() []*mcp.Tool {
	var out []*mcp.Tool
	for _, t := range engine.DefaultTools() {
		spec := t.Spec()
		schema := spec.Parameters
		if spec.Kind != model.ToolFunction || len(schema) == 0 {
			schema = json.RawMessage(applyPatchSchema)
		}
		out = append(out, &mcp.Tool{Name: spec.Name, Description: spec.Description + engineNote, InputSchema: schema})
	}
	return out
}

// auditTool is the tool that reads the session's audit.
func auditTool() *mcp.Tool {
	return &mcp.Tool{
		Name: AuditToolName,
		Description: "Reads the audit of this MCP session's Docket session, as docket audit prints it: each call's " +
			"state-machine transitions with their causes, approval decisions, the sandbox layers enforced, denial evidence, " +
			"and why any call ran without a sandbox.",
		InputSchema: json.RawMessage(auditSchema),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}
}
