// Package mcp connects Docket to MCP servers over stdio with the official Go
// SDK: it starts each configured server, lists its tools under qualified
// names (mcp__<server>__<tool>), routes calls back by recorded provenance,
// enforces per-call timeouts, detects servers that exit and restarts them
// with backoff, and shapes results for the model and the journal. A server
// configured with sandbox = true runs under Docket's Linux sandbox
// (sandbox.Command) with the plan Options.SandboxPlan gives, or not at all.
//
// The package knows nothing of the engine's state machine or journal: the
// engine asks Requirement whether a call needs approval, drives the call
// through its FSM (MCP calls run out of process, cause out_of_process), and
// records the Outcome.
package mcp
