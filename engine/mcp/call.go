package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Call runs the raw tool of server with args (a JSON object; empty means
// {}), routed by provenance. The call is bounded by the server's
// tool_timeout_sec. An error means the tool produced no result: it is a
// *CallError wrapping ErrTimeout, ErrServerExited, ErrServerUnavailable,
// ErrProtocol, ErrUnknownTool, ErrUnknownServer, ErrBadArguments or
// ErrClosed, or the caller's context error. A server that exits is
// restarted (with backoff) by a later Call.
func (m *Manager) Call(ctx context.Context, server, tool string, args json.RawMessage) (Result, error) {
	_, s, err := m.lookupRef(server, tool)
	if err != nil {
		return Result{}, err
	}
	fail := func(kind, cause error) (Result, error) {
		return Result{}, &CallError{Server: server, Tool: tool, Kind: kind, Err: cause}
	}
	if args, err = objectArgs(args); err != nil {
		return fail(ErrBadArguments, err)
	}
	// Close cancels calls in flight.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(m.closing, cancel)
	defer stop()

	if s.sem != nil {
		select {
		case s.sem <- struct{}{}:
			defer func() { <-s.sem }()
		case <-ctx.Done():
			return fail(m.ctxKind(ctx), nil)
		}
	}
	g, kind, err := s.session(ctx)
	if kind != nil {
		if ctx.Err() != nil {
			kind = m.ctxKind(ctx)
		}
		return fail(kind, err)
	}

	timeout := s.cfg.ToolTimeout()
	cctx, ccancel := context.WithTimeout(ctx, timeout)
	defer ccancel()
	res, err := g.sess.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	switch {
	case err == nil:
		s.answered()
		return newResult(res), nil
	case ctx.Err() != nil:
		return fail(m.ctxKind(ctx), nil)
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		// The SDK sent notifications/cancelled; the session stays usable.
		return Result{}, &CallError{Server: server, Tool: tool, Kind: ErrTimeout, After: timeout}
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		s.answered()
		return fail(ErrProtocol, err)
	}
	if exited(g, err) {
		// The connection broke: the process is being reaped; wait for its
		// exit status so the model is told why.
		select {
		case <-g.done:
			return fail(ErrServerExited, g.exit)
		case <-ctx.Done():
			return fail(ErrServerExited, err)
		}
	}
	return fail(ErrProtocol, err)
}

// exited reports whether err means the connection to g's process ended.
func exited(g *generation, err error) bool {
	select {
	case <-g.done:
		return true
	default:
	}
	// A remote server that dropped the session answers 404 (ErrSessionMissing):
	// like an exited process, the next call starts a new session.
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, sdk.ErrConnectionClosed) ||
		errors.Is(err, sdk.ErrSessionMissing)
}

// ctxKind names why ctx ended: the Manager closing, or the caller's context.
func (m *Manager) ctxKind(ctx context.Context) error {
	if m.closing.Err() != nil {
		return ErrClosed
	}
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return context.Canceled
}

// objectArgs checks that args is a JSON object; empty means {}.
func objectArgs(args json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage("{}"), nil
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, fmt.Errorf("got %s", preview(trimmed))
	}
	return trimmed, nil
}

// preview shortens b for an error message.
func preview(b []byte) string {
	const n = 60
	if len(b) > n {
		return fmt.Sprintf("%q...", b[:n])
	}
	return fmt.Sprintf("%q", b)
}
