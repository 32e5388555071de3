package mcpserve

import (
	"context"
	"errors"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
)

// Opener opens the Docket session of one MCP client session. The server
// asks for one on a client's first tool call and closes it when the
// client's session ends (or the session parks). The command line
// implements it with its own wiring (journal under $DOCKET_HOME, the
// policy, sandbox servers, rules and hooks of `docket exec`), so an MCP
// client's calls are a session's calls.
type Opener interface {
	Open(ctx context.Context, req OpenRequest) (Session, error)
	// Reopen takes session id back after it parked and docket resume
	// answered it: the client's next call goes on in the same session.
	// It returns an error wrapping ErrStillParked, having written
	// nothing, while a turn still waits for a decision.
	Reopen(ctx context.Context, id string, req OpenRequest) (Session, error)
}

// ErrStillParked says that a parked session has not been answered yet.
var ErrStillParked = errors.New("the session still waits for a decision")

// OpenRequest is what the server gives the session it opens.
type OpenRequest struct {
	// Client names the MCP client (its clientInfo name and version), for
	// the session's recorded settings.
	Client string
	// Approver answers the session's approval requests: MCP elicitation
	// when the client supports it, otherwise a park.
	Approver engine.Approver
	// Observer sees the session's notices; the server reads each call's
	// result from them.
	Observer engine.Observer
}

// Session is one open Docket session whose model is RelayModel: each
// Turn runs one client tool call (ToolCall.Prompt) through the engine.
type Session interface {
	// ID is the session id (docket audit, resume and replay take it).
	ID() string
	// JournalPath is the journal file.
	JournalPath() string
	// Turn runs one turn; the server calls it for one tool call at a time.
	Turn(ctx context.Context, prompt string) (engine.TurnResult, error)
	// Records returns the records journaled so far, for the audit tool.
	Records() ([]events.Record, error)
	// Close ends the session: its processes, sandbox servers and journal.
	Close() error
}
