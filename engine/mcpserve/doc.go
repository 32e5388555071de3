// Package mcpserve is `docket mcp-server`: an MCP server whose tools
// (shell, apply_patch, exec_command, write_stdin, audit) run each call
// through a Docket session's state machine, decisions, sandbox and
// journal, one session (one journal) per MCP client session.
//
// A client's tool call becomes one turn of its session: the call is
// journaled as the turn's user text, and RelayModel, the session's
// "model", answers with exactly that call and then ends the turn with the
// call's output. The engine decides, asks, sandboxes and journals it as
// any model's call, so docket audit, resume and replay read an MCP
// client's session as they read any other. Approvals go to the client as
// MCP elicitation; a client without it gets a parked call, which docket
// resume answers.
//
// The package opens sessions through Opener, which the command line
// implements with its own wiring.
package mcpserve
