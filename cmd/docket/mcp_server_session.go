package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/mcpserve"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/google/uuid"
)

// mcpOpener opens an MCP client's session with the wiring `docket exec`
// uses (wire): the journal under $DOCKET_HOME, the policy, sandbox
// servers, rules and hooks; the model is the client (mcpserve.RelayModel).
// It is the one place cmd/docket implements mcpserve.Opener, to be
// re-pointed at the embedding API when that lands.
type mcpOpener struct {
	a   *app
	cfg *config.Config
	cwd string
}

// Open implements mcpserve.Opener.
func (o *mcpOpener) Open(ctx context.Context, req mcpserve.OpenRequest) (_ mcpserve.Session, err error) {
	cfg := *o.cfg
	cfg.ModelProvider, cfg.Model = mcpserve.Provider, mcpserve.Provider
	w, err := wire(ctx, o.a, &cfg, o.cwd, wireOptions{observer: req.Observer, approver: req.Approver})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, w.finish())
		}
	}()
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	w.engine.SessionID = id.String()
	w.engine.Settings = append(w.engine.Settings, events.Setting{Key: "mcp_client", Value: req.Client})
	j, err := journal.Create(cfg.Home, w.engine.SessionID, time.Now())
	if err != nil {
		return nil, err
	}
	s, err := engine.Start(w.engine, j)
	if err != nil {
		return nil, errors.Join(err, j.Close())
	}
	return &mcpSession{s: s, j: j, finish: w.finish}, nil
}

// mcpSession is an open session and what closes it.
type mcpSession struct {
	s      *engine.Session
	j      *journal.Journal
	finish func() error
}

func (m *mcpSession) ID() string          { return m.j.SessionID() }
func (m *mcpSession) JournalPath() string { return m.j.Path() }
func (m *mcpSession) Turn(ctx context.Context, prompt string) (engine.TurnResult, error) {
	return m.s.Turn(ctx, prompt)
}
func (m *mcpSession) Records() ([]events.Record, error) { return m.j.All() }

// Close ends the session's processes and sandbox servers, then the journal.
func (m *mcpSession) Close() error { return errors.Join(m.finish(), m.j.Close()) }

// Reopen implements mcpserve.Opener: it takes a parked session back once
// docket resume has answered it, as docket resume would (the recorded
// policy, plan and rules; a session_resumed record), writing nothing while
// a turn still waits.
func (o *mcpOpener) Reopen(ctx context.Context, id string, req mcpserve.OpenRequest) (_ mcpserve.Session, err error) {
	sf, err := journal.Find(o.cfg.Home, id)
	if err != nil {
		return nil, err
	}
	j, err := journal.Open(sf.Path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, j.Close())
		}
	}()
	recs, err := j.All()
	if err != nil {
		return nil, err
	}
	cfg := *o.cfg
	cfg.ModelProvider, cfg.Model = mcpserve.Provider, mcpserve.Provider
	w, err := wire(ctx, o.a, &cfg, o.cwd, wireOptions{observer: req.Observer, approver: req.Approver})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, w.finish())
		}
	}()
	// The session keeps what it was started with (Restore fills these
	// from the journal when they are empty), as docket resume does.
	w.engine.Session, w.engine.Plan, w.engine.Rules, w.engine.Settings = events.SessionConfig{}, events.SandboxPlan{}, nil, nil
	w.engine.Instructions = ""
	probe, err := engine.Restore(w.engine, j, recs)
	if err != nil {
		return nil, err
	}
	if _, awaiting, pending := probe.Pending(); pending {
		return nil, fmt.Errorf("session %s (%v): %w", id, awaiting, mcpserve.ErrStillParked)
	}
	s, err := engine.Resume(w.engine, j, recs, events.SessionResumed{PID: os.Getpid()})
	if err != nil {
		return nil, err
	}
	return &mcpSession{s: s, j: j, finish: w.finish}, nil
}
