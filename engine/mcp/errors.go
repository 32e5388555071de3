package mcp

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors; every error the Manager returns wraps one of these where
// a caller may need to branch.
var (
	// ErrInvalidConfig marks a bad [mcp_servers.NAME] table.
	ErrInvalidConfig = errors.New("invalid MCP server config")
	// ErrUnknownServer: no server of that name is configured.
	ErrUnknownServer = errors.New("unknown MCP server")
	// ErrUnknownTool: the server offers no enabled tool of that name.
	ErrUnknownTool = errors.New("unknown MCP tool")
	// ErrBadArguments: the arguments are not a JSON object.
	ErrBadArguments = errors.New("MCP tool arguments must be a JSON object")
	// ErrServerUnavailable: the server is disabled, failed to start, or is
	// waiting out its restart backoff.
	ErrServerUnavailable = errors.New("MCP server unavailable")
	// ErrServerExited: the server process exited while the call was in flight.
	ErrServerExited = errors.New("MCP server exited")
	// ErrTimeout: the call ran past tool_timeout_sec.
	ErrTimeout = errors.New("MCP tool call timed out")
	// ErrProtocol: the server answered the call with a JSON-RPC error.
	ErrProtocol = errors.New("MCP server returned an error")
	// ErrClosed: the Manager was closed.
	ErrClosed = errors.New("MCP manager closed")
	// ErrSandboxUnavailable: sandbox = true is configured but the server
	// cannot be started under the sandbox (no plan, a layer the machine
	// lacks, a helper that failed to confine itself); it is not started.
	ErrSandboxUnavailable = errors.New("cannot start the MCP server under the sandbox")
)

// CallError is the error of a tool call that produced no result: it names
// the server and raw tool, and wraps a sentinel (ErrTimeout, ErrServerExited,
// ...) alongside the underlying cause.
type CallError struct {
	Server string
	Tool   string
	Kind   error // one of the sentinels above
	Err    error // the cause, or nil
	// After is how long the call ran before a timeout (Kind ErrTimeout).
	After time.Duration
}

// Error renders the failure in one line that names the server and tool.
func (e *CallError) Error() string {
	msg := fmt.Sprintf("mcp server %q tool %q: %v", e.Server, e.Tool, e.Kind)
	if e.Kind == ErrTimeout {
		msg += fmt.Sprintf(" after %s", e.After)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap exposes both the sentinel and the cause to errors.Is/As.
func (e *CallError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// ServerError is one server's failure to start.
type ServerError struct {
	Server string
	Err    error
}

// Error names the server.
func (e *ServerError) Error() string { return fmt.Sprintf("mcp server %q: %v", e.Server, e.Err) }

// Unwrap returns the cause.
func (e *ServerError) Unwrap() error { return e.Err }

// ExitError describes how a server process ended: its exit status or
// signal, and the tail of what it wrote to stderr.
type ExitError struct {
	// Status is the exit status, or -1 when killed by a signal or unknown.
	Status int
	Signal string
	// Stderr is the last few lines the server wrote to stderr.
	Stderr string
}

// Error reads like "exit status 3; stderr: ...".
func (e *ExitError) Error() string {
	var msg string
	switch {
	case e.Signal != "":
		msg = "killed by signal " + e.Signal
	case e.Status >= 0:
		msg = fmt.Sprintf("exit status %d", e.Status)
	default:
		msg = "exited"
	}
	if e.Stderr != "" {
		msg += "; stderr: " + e.Stderr
	}
	return msg
}
