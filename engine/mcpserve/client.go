package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/docket-engine/docket/events"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// client is one MCP client session and its Docket session.
type client struct {
	srv *Server
	ss  *mcp.ServerSession
	obs *collector

	// run lets one tool call at a time through the session: a turn is
	// one call, and the engine runs one turn at a time.
	run sync.Mutex

	mu     sync.Mutex
	sess   Session // nil before the first call, and once closed
	id     string  // the session's id and journal, kept after it closed
	path   string
	calls  int
	parked []string
	// answered are the parked calls that docket resume answered, whose
	// outcome the next call's result carries (the client never saw it).
	answered []string
	ended    bool
}

// open returns the client's Docket session, opening it on the first call.
// Once it parked or closed, it is not reopened: its journal belongs to
// docket resume.
func (c *client) open(ctx context.Context) (Session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != nil {
		return c.sess, nil
	}
	if c.ended {
		return nil, fmt.Errorf("session %s has ended: open a new MCP session", c.id)
	}
	// The session outlives the call that opens it: what it starts (the
	// configured MCP servers, sandbox servers) must not end with the call.
	octx := context.WithoutCancel(ctx)
	req := OpenRequest{Client: clientName(c.ss), Approver: elicitApprover{ss: c.ss}, Observer: c.obs}
	if len(c.parked) > 0 {
		// Parked: once docket resume has answered, the session goes on.
		sess, err := c.srv.opener.Reopen(octx, c.id, req)
		if err != nil {
			return nil, &parkedError{id: c.id, calls: c.parked, cause: err}
		}
		c.sess, c.answered, c.parked = sess, c.parked, nil
		return sess, nil
	}
	sess, err := c.srv.opener.Open(octx, req)
	if err != nil {
		return nil, fmt.Errorf("open a Docket session: %w", err)
	}
	c.sess, c.id, c.path = sess, sess.ID(), sess.JournalPath()
	return sess, nil
}

// close ends the Docket session after the call under way, if any.
func (c *client) close() error {
	c.run.Lock()
	defer c.run.Unlock()
	c.mu.Lock()
	sess := c.sess
	c.sess, c.ended = nil, true
	c.mu.Unlock()
	if sess == nil {
		return nil
	}
	if err := sess.Close(); err != nil {
		return fmt.Errorf("close session %s: %w", sess.ID(), err)
	}
	return nil
}

// parkedError says that the session waits for decisions only docket resume
// can give now.
type parkedError struct {
	id    string
	calls []string
	// cause is why the session could not be taken back, when it was tried
	// and the reason is not that it still waits.
	cause error
}

func (e *parkedError) Error() string {
	msg := fmt.Sprintf("session %s is parked waiting for a decision on %s: answer with docket resume %s --decisions %s "+
		"(or =denied), then call again: this MCP session goes on once it is answered", e.id, strings.Join(e.calls, ", "), e.id, decisionsHint(e.calls))
	if e.cause != nil && !errors.Is(e.cause, ErrStillParked) {
		msg += fmt.Sprintf(" (taking it back failed: %v)", e.cause)
	}
	return msg
}

func (e *parkedError) Unwrap() error { return e.cause }

func decisionsHint(calls []string) string {
	parts := make([]string, len(calls))
	for i, id := range calls {
		parts[i] = id + "=approved"
	}
	return strings.Join(parts, ",")
}

// CallResult is a tool call's structured result.
type CallResult struct {
	SessionID string `json:"session_id"`
	CallID    string `json:"call_id"`
	// Status is completed, failed, declined or parked.
	Status   string `json:"status"`
	ExitCode *int   `json:"exit_code,omitempty"`
	// ProcessID is, for exec_command and write_stdin, the long-lived
	// process's session id while it still runs (write_stdin takes it).
	ProcessID *int   `json:"process_id,omitempty"`
	Output    string `json:"output"`
	// Journal is the session's journal file.
	Journal string `json:"journal"`
	// Answered is, on the first call after a park, the outcome of the
	// parked calls docket resume answered and ran since.
	Answered []AnsweredCall `json:"answered,omitempty"`
}

// call runs one client tool call as one turn of the session.
func (c *client) call(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	c.run.Lock()
	defer c.run.Unlock()
	sess, err := c.open(ctx)
	if err != nil {
		return toolError(err.Error(), nil), nil
	}
	c.mu.Lock()
	c.calls++
	callID := fmt.Sprintf("mcp_%d", c.calls)
	answeredIDs := c.answered
	c.answered = nil
	c.mu.Unlock()
	var answered []AnsweredCall
	if len(answeredIDs) > 0 {
		// Read before the turn: the records are docket resume's, and the
		// result of this call, whatever it is, carries them.
		recs, rerr := sess.Records()
		if rerr == nil {
			answered, rerr = answeredCalls(recs, answeredIDs)
		}
		if rerr != nil {
			answered = []AnsweredCall{{CallID: strings.Join(answeredIDs, ","), Output: fmt.Sprintf("reading the answered calls' outcome: %v (docket audit shows it)", rerr)}}
		}
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	prompt, err := ToolCall{CallID: callID, Name: name, Arguments: args}.Prompt()
	if err != nil {
		return withAnswered(toolError(err.Error(), nil), answered), nil
	}
	c.obs.begin(callID)
	res, err := sess.Turn(ctx, prompt)
	done, parked := c.obs.end()
	out := CallResult{SessionID: sess.ID(), CallID: callID, Journal: sess.JournalPath(), Answered: answered}
	if err != nil {
		return withAnswered(toolError(fmt.Sprintf("call %s of session %s: %v", callID, sess.ID(), err), out), answered), nil
	}
	switch res.Status {
	case events.TurnParked:
		calls := res.Parked
		if len(calls) == 0 {
			calls = parked
		}
		c.mu.Lock()
		c.parked = calls
		c.sess = nil
		c.mu.Unlock()
		// The journal is docket resume's from now on: close it, so that
		// resume can open it while this client is still connected.
		perr := &parkedError{id: sess.ID(), calls: calls}
		msg := "parked: " + perr.Error()
		if cerr := sess.Close(); cerr != nil {
			msg += fmt.Sprintf(" (closing the session failed: %v)", cerr)
		}
		out.Status, out.Output = "parked", msg
		return withAnswered(toolError(msg, out), answered), nil
	case events.TurnCompleted:
	default:
		return withAnswered(toolError(fmt.Sprintf("call %s of session %s: turn %s: %s", callID, sess.ID(), res.Status, res.Message), out), answered), nil
	}
	out.Output = res.Message
	out.Status = string(done.Status)
	if done.CallID == callID {
		out.Output = done.Output
		if done.Status != "" && done.ExitCode >= 0 && done.Process == nil {
			ec := done.ExitCode
			out.ExitCode = &ec
		}
		if done.Process != nil && done.Process.Running {
			id := done.Process.ID
			out.ProcessID = &id
		}
	}
	r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.Output}}, StructuredContent: out}
	r.IsError = out.Status != "completed"
	return withAnswered(r, answered), nil
}

// withAnswered adds the answered parked calls' outcomes to a result's text,
// after the call's own (its structured result lists them in Answered).
func withAnswered(r *mcp.CallToolResult, answered []AnsweredCall) *mcp.CallToolResult {
	if len(answered) > 0 {
		r.Content = append(r.Content, &mcp.TextContent{Text: answeredText(answered)})
	}
	return r
}

func toolError(msg string, out any) *mcp.CallToolResult {
	r := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
	if out != nil {
		r.StructuredContent = out
	}
	return r
}

// engineHandler runs a call of one of the engine's tools.
func (s *Server) engineHandler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c, err := s.client(req.Session)
		if err != nil {
			return nil, err
		}
		return c.call(ctx, name, req.Params.Arguments)
	}
}
