package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/mcpserve"
	"github.com/docket-engine/docket/engine/session"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/google/uuid"
)

// mcpOpener opens an MCP client's session through the embedding API
// (engine/session) with the options `docket exec` uses (wire): the
// journal under $DOCKET_HOME, the policy, sandbox servers, rules and
// hooks; the model is the client (mcpserve.RelayModel).
type mcpOpener struct {
	a   *app
	cfg *config.Config
	cwd string
}

// wire is the wiring of a session Open and Reopen give a client: the
// configuration with the client as the model, its observer and approver.
func (o *mcpOpener) wire(ctx context.Context, req mcpserve.OpenRequest) (*wiring, error) {
	cfg := *o.cfg
	cfg.ModelProvider, cfg.Model = mcpserve.Provider, mcpserve.Provider
	return wire(ctx, o.a, &cfg, o.cwd, wireOptions{observer: req.Observer, approver: req.Approver})
}

// Open implements mcpserve.Opener.
func (o *mcpOpener) Open(ctx context.Context, req mcpserve.OpenRequest) (_ mcpserve.Session, err error) {
	w, err := o.wire(ctx, req)
	if err != nil {
		return nil, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, errors.Join(err, w.finish())
	}
	w.opts.SessionID = id.String()
	w.opts.Settings = append(w.opts.Settings, events.Setting{Key: "mcp_client", Value: req.Client})
	s, err := w.open(ctx)
	if err != nil {
		return nil, errors.Join(err, w.finish())
	}
	return &mcpSession{s: s, finish: w.finish}, nil
}

// mcpSession is an open session and what closes it.
type mcpSession struct {
	s      *session.Session
	finish func() error
}

func (m *mcpSession) ID() string          { return m.s.ID() }
func (m *mcpSession) JournalPath() string { return m.s.JournalPath() }
func (m *mcpSession) Turn(ctx context.Context, prompt string) (engine.TurnResult, error) {
	return m.s.Turn(ctx, prompt)
}
func (m *mcpSession) Records() ([]events.Record, error) { return m.s.Records() }

// Close ends the session's processes, sandbox servers and journal, then
// what the wiring holds.
func (m *mcpSession) Close() error { return errors.Join(m.s.Close(), m.finish()) }

// Reopen implements mcpserve.Opener: it takes a parked session back once
// docket resume has answered it, as docket resume would (the recorded
// policy, plan and rules; a session_resumed record), writing nothing while
// a turn still waits.
func (o *mcpOpener) Reopen(ctx context.Context, id string, req mcpserve.OpenRequest) (mcpserve.Session, error) {
	sf, err := journal.Find(o.cfg.Home, id)
	if err != nil {
		return nil, err
	}
	var w *wiring
	configure := func(session.Recorded) (session.Options, error) {
		wired, err := o.wire(ctx, req)
		if err != nil {
			return session.Options{}, err
		}
		w = wired
		w.opts.RequireAnswered = true
		return w.opts, nil
	}
	s, err := session.ResumeWith(ctx, sf.Path, configure)
	if err != nil {
		if w != nil {
			err = errors.Join(err, w.finish())
		}
		if errors.Is(err, session.ErrPending) {
			return nil, fmt.Errorf("%w: %w", mcpserve.ErrStillParked, err)
		}
		return nil, err
	}
	return &mcpSession{s: s, finish: w.finish}, nil
}
