package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

// ChildLog is a subagent's journal: a Log the engine closes when the child's
// turn is over.
type ChildLog interface {
	Log
	Close() error
}

// AgentHost gives subagents what the engine cannot make itself: their
// journals and their models. Everything else a child inherits from its
// parent session (policy, sandbox plan, rules, grants, runner, tools,
// approver). cmd/docket's host files child journals beside the parent's and
// gives a scripted model the lines of the child's name.
type AgentHost interface {
	// CreateLog creates the journal of a new child session.
	CreateLog(childID string) (ChildLog, error)
	// OpenLog opens the journal of a child a previous process started, with
	// its records. When there is none it returns an error wrapping
	// fs.ErrNotExist (the child never got as far as its journal).
	OpenLog(childID string) (ChildLog, []events.Record, error)
	// Model returns the model of the child called name; used is what its
	// journal already took from a scripted model (ScriptLinesUsed: a
	// scripted model skips past it, as a resumed session's does).
	Model(name string, used ScriptUse) (model.Model, error)
}

// ErrAgentParked is wrapped by the error a spawn_agent run returns when the
// subagent waits for an approval decision nobody can give now: the parent
// parks with it, and a resume of the parent asks again.
var ErrAgentParked = errors.New("a subagent waits for an approval decision")

// AgentParkedError names the subagent that parked and its waiting calls,
// addressed as NAME/CALL_ID (nested subagents: NAME/CHILD/CALL_ID).
type AgentParkedError struct {
	Name, ChildID string
	Calls         []string
}

func (e *AgentParkedError) Error() string {
	return fmt.Sprintf("subagent %s (%s) waits for a decision on %s", e.Name, e.ChildID, strings.Join(e.Calls, ", "))
}

// Is makes errors.Is(err, ErrAgentParked) true.
func (e *AgentParkedError) Is(target error) bool { return target == ErrAgentParked }

// depth is how deep the session sits in a tree of subagents (0: top).
func (s *Session) depth() int {
	if s.cfg.Parent == nil {
		return 0
	}
	return s.cfg.Parent.Depth
}

// spawnOrdinal is a spawn_agent call's place among the session's subagents
// (1 for the first); 0 for a call that was never accepted.
func (s *Session) spawnOrdinal(callID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spawns[callID]
}

// countSpawnsLocked numbers a response's accepted spawn_agent calls, in
// call order, so the bound on children does not depend on which parallel
// call runs first (replay must refuse the same one).
func (s *Session) countSpawnsLocked(valid []Call) {
	for _, c := range valid {
		if c.Name == SpawnAgentName {
			if _, seen := s.spawns[c.ID]; !seen {
				s.spawns[c.ID] = len(s.spawns) + 1
			}
		}
	}
}

// runAgent starts the subagent a prepared spawn_agent call describes: the
// call moves to sandboxed (the child's plan is sandboxed) or unsandboxed,
// its write-ahead record (naming the child) is made durable, and only then
// does the child start.
func (t *turn) runAgent(ctx context.Context, cr *callRun) (callResult, error) {
	s := t.s
	start := cr.prep.Start
	start.CallID, start.Attempt = cr.call.ID, 1
	ev := states.RunSandboxed
	if !start.Sandbox.Sandboxed() {
		ev = states.RunUnsandboxed
	}
	why := fmt.Sprintf("starts subagent %s (session %s); its calls are decided under its own inherited policy", start.Agent.Name, start.Agent.ChildID)
	if err := cr.fire(ctx, ev, states.CausePolicySkip, why); err != nil {
		return callResult{call: cr.call}, err
	}
	if _, err := s.rec.appendDurable(cr.call.ID, start); err != nil {
		return callResult{call: cr.call}, err
	}
	// Starting a subagent needs no decision: the response's later calls
	// may ask theirs now rather than after the child's whole turn.
	t.gate.pass(cr.idx)
	s.notify(Notice{Type: NoticeCallStarted, TurnID: t.id, CallID: cr.call.ID, Tool: SpawnAgentName, Cwd: start.Cwd, Arguments: cr.call.Payload, Agent: start.Agent})
	return t.awaitAgent(ctx, cr, start, false)
}

// awaitAgent runs (or, resuming, continues) the child and records its end
// as the call's outcome. A parked child parks the call; a cancelled one
// interrupts it (the child has journaled its own calls as interrupted).
func (t *turn) awaitAgent(ctx context.Context, cr *callRun, start events.ExecStarted, resume bool) (callResult, error) {
	s := t.s
	out, err := s.agentOutcome(ctx, start, resume)
	var pe *AgentParkedError
	if errors.As(err, &pe) {
		return callResult{call: cr.call, parked: true, parkedAs: pe.Calls}, nil
	}
	if err != nil && ctx.Err() != nil {
		cause, why := stopCause(ctx)
		return t.interrupt(ctx, cr, cause, why+" while subagent "+start.Agent.Name+" ran; its calls were stopped")
	}
	if err != nil {
		out = events.ExecOutcome{ExitCode: -1, Error: err.Error()}
	}
	out.CallID, out.Attempt = cr.call.ID, start.Attempt
	if _, err := s.rec.append(cr.call.ID, out); err != nil {
		return callResult{call: cr.call}, err
	}
	reason := "subagent " + start.Agent.Name + " finished"
	if out.Agent != nil && out.Agent.Status != events.TurnCompleted {
		reason = fmt.Sprintf("subagent %s ended %s", start.Agent.Name, out.Agent.Status)
	} else if out.Error != "" {
		reason = "subagent " + start.Agent.Name + " failed: " + out.Error
	}
	res, err := t.finish(ctx, cr, out, states.CauseCompleted, reason)
	if err == nil && out.Agent != nil && out.Agent.Status == events.TurnAborted {
		// The user answered "abort" to one of the child's requests: that
		// stops the whole tree's turn, as it would the parent's own call.
		res.abort = true
	}
	return res, err
}

// agentOutcome runs the child through the AgentHost; without one (replay)
// the Runner gives the recorded outcome.
func (s *Session) agentOutcome(ctx context.Context, start events.ExecStarted, resume bool) (events.ExecOutcome, error) {
	if s.cfg.Agents == nil {
		return s.runner.Run(ctx, RunRequest{ExecStarted: start, OutputCap: s.cfg.CaptureCap})
	}
	return s.runChild(ctx, start, resume)
}

// runChild runs a subagent's turn in its own session and journal, or
// continues the one a previous process left unfinished.
func (s *Session) runChild(ctx context.Context, start events.ExecStarted, resume bool) (out events.ExecOutcome, err error) {
	sp := start.Agent
	host := s.cfg.Agents
	var (
		log  ChildLog
		recs []events.Record
	)
	if resume {
		log, recs, err = host.OpenLog(sp.ChildID)
		if errors.Is(err, fs.ErrNotExist) {
			log, recs, err = nil, nil, nil
		}
		if err != nil {
			return out, fmt.Errorf("subagent %s: open its journal: %w", sp.Name, err)
		}
	}
	if log == nil {
		if log, err = host.CreateLog(sp.ChildID); err != nil {
			return out, fmt.Errorf("subagent %s: create its journal: %w", sp.Name, err)
		}
	}
	defer func() {
		if cerr := log.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("subagent %s: close its journal: %w", sp.Name, cerr)
		}
	}()
	mdl, err := host.Model(sp.Name, ScriptLinesUsed(recs))
	if err != nil {
		return out, fmt.Errorf("subagent %s: model: %w", sp.Name, err)
	}
	router := &routedApprover{next: s.approver, name: sp.Name, child: sp.ChildID}
	cfg := s.childConfig(start, mdl, router)
	var res TurnResult
	if len(recs) == 0 {
		child, err := Start(cfg, log)
		if err != nil {
			return out, fmt.Errorf("subagent %s: %w", sp.Name, err)
		}
		if res, err = child.Turn(ctx, sp.Prompt); err != nil {
			return out, fmt.Errorf("subagent %s: %w", sp.Name, err)
		}
	} else {
		router.got = decisionsIn(recs)
		child, err := Resume(cfg, log, recs, events.SessionResumed{PID: os.Getpid()})
		if err != nil {
			return out, fmt.Errorf("subagent %s: resume: %w", sp.Name, err)
		}
		last, turned := lastTurnEnd(recs)
		switch _, _, pending := child.Pending(); {
		case pending:
			res, err = child.Continue(ctx)
		case !turned:
			// Started, but the crash came before its turn was journaled.
			res, err = child.Turn(ctx, sp.Prompt)
		default:
			res = TurnResult{TurnID: last.TurnID, Status: last.Status, Message: last.Message}
		}
		if err != nil {
			return out, fmt.Errorf("subagent %s: %w", sp.Name, err)
		}
	}
	result := &events.AgentResult{ChildID: sp.ChildID, Status: res.Status, Decisions: router.decisions()}
	switch res.Status {
	case events.TurnCompleted:
		return events.ExecOutcome{Output: res.Message, Agent: result}, nil
	case events.TurnParked:
		calls := make([]string, len(res.Parked))
		for i, c := range res.Parked {
			calls[i] = sp.Name + "/" + c
		}
		return out, &AgentParkedError{Name: sp.Name, ChildID: sp.ChildID, Calls: calls}
	}
	if ctx.Err() != nil {
		return out, fmt.Errorf("subagent %s stopped: %w", sp.Name, context.Cause(ctx))
	}
	return events.ExecOutcome{ExitCode: 1, Output: res.Message, Error: "its turn ended " + string(res.Status), Agent: result}, nil
}

// childConfig is the child's session configuration: the parent's, with the
// child's own id, policy and plan (as the write-ahead record says), model and
// routed approver, and the link to its parent with the grants it inherits.
func (s *Session) childConfig(start events.ExecStarted, mdl model.Model, appr Approver) Config {
	sp := start.Agent
	c := s.cfg
	c.SessionID, c.Session, c.Plan, c.Model, c.Approver = sp.ChildID, sp.Config, start.Sandbox, mdl, appr
	c.Observer = agentObserver{next: s.observer, name: sp.Name}
	c.OutputSchema = nil
	// A risk assessment asks the session's model; a child's would take the
	// parent's (scripted) answers, so children go without.
	c.Risk = nil
	// The child's proxy has the rules in force now: those of a profile
	// switched to with /permissions, or recorded in the journal a resumed
	// parent was restored from, not the configuration's.
	c.Egress = nil
	if start.Sandbox.Egress {
		_, c.Egress = s.egress.current()
	}
	c.Parent = &events.ParentLink{SessionID: s.cfg.SessionID, CallID: start.CallID, Name: sp.Name, Depth: sp.Depth,
		Grants: s.decider.store.Keys(), AllowRules: s.decider.AllowRules()}
	return c
}

func decisionsIn(recs []events.Record) []events.RoutedDecision {
	var out []events.RoutedDecision
	for _, r := range recs {
		if r.Kind != events.KindDecision {
			continue
		}
		b, err := r.Decode()
		if err != nil {
			continue
		}
		d := b.(*events.Decision)
		out = append(out, events.RoutedDecision{CallID: d.CallID, RequestID: d.RequestID, Decision: d.Decision, Source: d.Source})
	}
	return out
}

func lastTurnEnd(recs []events.Record) (events.TurnEnded, bool) {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Kind != events.KindTurnEnded {
			continue
		}
		if b, err := recs[i].Decode(); err == nil {
			return *b.(*events.TurnEnded), true
		}
	}
	return events.TurnEnded{}, false
}

// routedApprover sends a child's approval requests to its parent's
// approver, labelled with the child's name (a path from the top for nested
// children) and session id, and keeps the answers for the parent's journal.
type routedApprover struct {
	next        Approver
	name, child string
	mu          sync.Mutex
	got         []events.RoutedDecision
}

// Decide asks the parent's approver.
func (r *routedApprover) Decide(ctx context.Context, req ApprovalRequest) (Answer, error) {
	own := req.Agent == ""
	if own {
		req.Agent, req.AgentSession = r.name, r.child
	} else {
		req.Agent = r.name + "/" + req.Agent
	}
	ans, err := r.next.Decide(ctx, req)
	if err == nil && own {
		r.mu.Lock()
		r.got = append(r.got, events.RoutedDecision{CallID: req.CallID, RequestID: req.RequestID, Decision: ans.Decision, Source: ans.Source})
		r.mu.Unlock()
	}
	return ans, err
}

func (r *routedApprover) decisions() []events.RoutedDecision {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]events.RoutedDecision(nil), r.got...)
}

// agentObserver shows a child's calls among the parent's, each addressed
// NAME/CALL_ID; the child's turn-level notices (its final message, its
// parking) are the parent call's business and are not shown as the
// parent's.
type agentObserver struct {
	next Observer
	name string
}

func (o agentObserver) Notify(n Notice) {
	switch n.Type {
	case NoticeTurnStarted, NoticeTurnCompleted, NoticeTurnFailed, NoticeParked, NoticeTextDelta, NoticeMessage, NoticeReasoning:
		return
	}
	if n.CallID != "" {
		n.CallID = o.name + "/" + n.CallID
	}
	if n.Approval != nil {
		a := *n.Approval
		a.CallID = o.name + "/" + a.CallID
		n.Approval = &a
	}
	o.next.Notify(n)
}
