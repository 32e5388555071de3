package engine

import (
	"context"
	"fmt"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
	"github.com/docket-engine/docket/states/policy"
)

// callHistory is what the journal says about one call, for resuming it.
type callHistory struct {
	phase      events.Phase               // phase of the last approval request
	reason     string                     // its reason
	approved   map[events.Phase]bool      // phases the user approved
	outcomes   map[int]events.ExecOutcome // by attempt
	started    map[int]events.ExecStarted
	hasOutput  bool
	lastCause  string
	lastReason string
	feedback   string // the user's words with the last denial
	// saved are the answers journaled for the phase's latest approval
	// request, which a crash may have kept from being acted on.
	saved   map[events.Phase]events.Decision
	granted map[string]bool // request ids whose session grant is journaled
	amended bool            // a rule amendment of this call is journaled
}

func newCallHistory() *callHistory {
	return &callHistory{approved: map[events.Phase]bool{}, outcomes: map[int]events.ExecOutcome{}, started: map[int]events.ExecStarted{},
		saved: map[events.Phase]events.Decision{}, granted: map[string]bool{}}
}

// pendingTurn is a turn a resumed session must finish: parked, or cut off
// by a crash.
type pendingTurn struct {
	id    string
	calls []Call // calls of the last response without a tool output
	usage events.Usage
}

// Restore rebuilds a session from its journal's records: conversation,
// grants, amendments, and every call's state. It writes nothing.
func Restore(cfg Config, log Log, records []events.Record) (*Session, error) {
	if len(records) == 0 || records[0].Kind != events.KindSessionStarted {
		return nil, fmt.Errorf("engine: journal does not begin with session_started")
	}
	body, err := records[0].Decode()
	if err != nil {
		return nil, err
	}
	ss := body.(*events.SessionStarted)
	// The recorded session fills whatever the caller left empty; replay
	// passes rules or a configuration of its own to ask "what if".
	cfg.SessionID, cfg.Cwd = ss.SessionID, ss.Cwd
	if cfg.Session.ApprovalPolicy == "" {
		cfg.Session = ss.Config
	}
	if cfg.Plan.Mode == "" {
		cfg.Plan = ss.Plan
	}
	if cfg.Rules == nil {
		cfg.Rules = ss.Rules
	}
	if cfg.Instructions == "" {
		cfg.Instructions = ss.Instructions
	}
	if cfg.Settings == nil {
		cfg.Settings = ss.Settings
	}
	if ss.Parent != nil {
		cfg.Parent = ss.Parent
	}
	if ss.Network != nil {
		// The proxy serves the rules the session started under, not the
		// configuration's now; a journal from before they were recorded
		// keeps the configuration's (cfg.Egress).
		eg, err := egressOfRecord(ss.Network, cfg.Egress)
		if err != nil {
			return nil, fmt.Errorf("engine: session_started: %w", err)
		}
		cfg.Egress = eg
	}
	s, err := build(cfg, log)
	if err != nil {
		return nil, err
	}
	var (
		turnID    string
		turnOpen  bool
		lastCalls []Call
		outputs   = map[string]events.ToolOutput{}
		last      = map[string]states.State{}
		usage     events.Usage
	)
	var refused map[int]string // position in lastCalls → output of a refused call
	flush := func() {
		for i, c := range lastCalls {
			if text, ok := refused[i]; ok {
				s.addItemsLocked(outputItem(c, text))
				continue
			}
			if o, ok := outputs[c.ID]; ok {
				s.addItemsLocked(outputItemOK(c, o.Output, o.Success))
				delete(outputs, c.ID)
			}
		}
	}
	hist := func(id string) *callHistory {
		h, ok := s.history[id]
		if !ok {
			h = newCallHistory()
			s.history[id] = h
		}
		return h
	}
	for _, r := range records[1:] {
		b, err := r.Decode()
		if err != nil {
			return nil, fmt.Errorf("engine: restore seq %d: %w", r.Seq, err)
		}
		switch v := b.(type) {
		case *events.UserTurn:
			flush()
			lastCalls = nil
			s.turns++
			turnID, turnOpen, usage = v.TurnID, true, events.Usage{}
			it := userItem(v.Text, v.Images, v.Attachments)
			s.addItemsLocked(it)
			s.prompt = &it
		case *events.ModelRequest:
			flush()
			lastCalls = nil
			s.requests = v.Request
		case *events.ModelResponse:
			if v.Error == "" {
				s.addResolvedLocked(v.Resolved)
				s.addItemsLocked(v.Items...)
				s.noteUsageLocked(v.Usage)
				lastCalls = callsOf(v.Items)
				refused = s.restoreScreen(lastCalls)
				usage = usage.Add(v.Usage)
			}
		case *events.Compaction:
			// The summary replaced everything before it, the outputs of the
			// last response's calls included.
			if v.Error == "" {
				flush()
				lastCalls = nil
				s.replaceLocked(v.Summary, v.KeptPrompt)
			}
		case *events.Transition:
			last[v.CallID] = states.State(v.To)
			h := hist(v.CallID)
			h.lastCause, h.lastReason = v.Cause, v.Reason
		case *events.ApprovalRequested:
			h := hist(v.CallID)
			h.phase, h.reason = v.Phase, v.Reason
			delete(h.saved, v.Phase)
		case *events.Decision:
			hist(v.CallID).feedback = v.Feedback
			switch v.Decision {
			case events.Approved, events.ApprovedForSession, events.ApprovedExecpolicyAmendment:
				hist(v.CallID).approved[v.Phase] = true
			}
			hist(v.CallID).saved[v.Phase] = *v
		case *events.Grant:
			s.decider.Grant(v.Keys)
			hist(v.CallID).granted[v.RequestID] = true
		case *events.PolicyChanged:
			ap, err := policy.ParseApprovalPolicy(v.ApprovalPolicy)
			if err != nil {
				return nil, fmt.Errorf("engine: restore seq %d: policy_changed: %w", r.Seq, err)
			}
			s.decider.setApproval(ap)
			sw, err := s.sandboxChange(v.Permissions, nil)
			if err != nil {
				return nil, fmt.Errorf("engine: restore seq %d: policy_changed: %w", r.Seq, err)
			}
			s.putSandbox(sw)
			s.addPermissionsLocked(v.Message)
		case *events.RuleAmended:
			s.decider.AddAllowRule(v.Pattern)
			hist(v.CallID).amended = true
		case *events.ExecStarted:
			hist(v.CallID).started[v.Attempt] = *v
			s.procs.started(*v)
		case *events.ExecOutcome:
			hist(v.CallID).outcomes[v.Attempt] = *v
			s.procs.observed(hist(v.CallID).started[v.Attempt], *v)
		case *events.ProcessEnded:
			s.procs.ended(*v)
		case *events.SessionResumed:
			// The docket before this one is gone, and its processes with it.
			s.procs.loseAll()
		case *events.ToolOutput:
			outputs[v.CallID] = *v
			hist(v.CallID).hasOutput = true
		case *events.TurnEnded:
			turnOpen = v.Status == events.TurnParked
			if !turnOpen {
				flush()
				lastCalls = nil
			}
		case *events.NetworkDecision:
			s.egress.restore(*v)
		}
	}
	flush()
	// Restoring is always a new docket: no process of the journal's is
	// still running in it.
	s.procs.loseAll()
	s.restored = last
	if turnOpen {
		p := &pendingTurn{id: turnID, usage: usage}
		for i, c := range lastCalls {
			if _, bad := refused[i]; bad {
				continue
			}
			if h, ok := s.history[c.ID]; !ok || !h.hasOutput {
				p.calls = append(p.calls, c)
			}
		}
		s.pending = p
	}
	return s, nil
}

func (s *Session) sinkFor() states.Sink {
	return states.SinkFunc(func(t events.Transition) error {
		_, err := s.rec.append(t.CallID, t)
		return err
	})
}

// Pending reports whether the session has a turn to finish, and the calls
// of it that wait for a decision.
func (s *Session) Pending() (turnID string, awaiting []string, ok bool) {
	if s.pending == nil {
		return "", nil, false
	}
	for _, c := range s.pending.calls {
		if st, ok := s.CallState(c.ID); ok && st == states.AwaitingDecision {
			awaiting = append(awaiting, c.ID)
		}
	}
	return s.pending.id, awaiting, true
}

// Continue finishes a turn that was parked or cut off: calls waiting for a
// decision are asked again, calls caught mid-run are interrupted with
// "outcome unknown" (never re-run), calls never started run now; then the
// turn goes on with the model.
func (s *Session) Continue(ctx context.Context) (TurnResult, error) {
	p := s.pending
	if p == nil {
		return TurnResult{}, fmt.Errorf("session %s has no unfinished turn", s.cfg.SessionID)
	}
	s.pending = nil
	t := &turn{s: s, id: p.id, usage: p.usage}
	s.notify(Notice{Type: NoticeTurnStarted, TurnID: t.id})
	if len(p.calls) == 0 {
		return t.loop(ctx, nil)
	}
	return t.loop(ctx, p.calls)
}

// resumeCall picks up a call that a previous process left mid-way.
func (t *turn) resumeCall(ctx context.Context, cr *callRun) (callResult, error) {
	s := t.s
	h := s.history[cr.call.ID]
	if h == nil {
		h = newCallHistory()
	}
	for p, ok := range h.approved {
		cr.asked[p] = ok
	}
	tool, ok := s.registry.Lookup(cr.call.Name)
	var prep *PreparedCall
	var perr error
	if ok {
		prep, perr = tool.Prepare(cr.call, s.env())
	}
	if ok && perr != nil && cr.call.Name == WriteStdinName && len(h.started) > 0 {
		// The write was under way when docket stopped: its process is
		// gone with that docket, so Prepare now refuses it, but the call
		// itself ends as any call caught mid-run does.
		prep, perr = &PreparedCall{Shape: shapeProcess, Start: h.started[len(h.started)]}, nil
	}
	if !ok || perr != nil {
		cr.prep = &PreparedCall{Shape: func(events.ExecOutcome) (string, bool) { return "", false }}
		if cr.m.Can(states.Interrupt) {
			return t.interrupt(ctx, cr, states.CauseCrashRecovery, "the tool is no longer available after resume")
		}
	} else {
		cr.prep = prep
	}
	last := len(h.started)
	if cr.prep.Start.Agent != nil && (cr.m.Current() == states.Sandboxed || cr.m.Current() == states.Unsandboxed) {
		_, done := h.outcomes[last]
		if st, ok := h.started[last]; ok && !done {
			// A subagent left running or parked: its own journal says
			// where it stands, and it goes on from there (its calls are
			// resumed by its own state machines, never re-run).
			return t.awaitAgent(ctx, cr, st, true)
		}
	}
	switch cr.m.Current() {
	case states.AwaitingDecision:
		phase := h.phase
		if phase == "" {
			phase = events.PhaseInitial
		}
		// An answer the journal already holds was given by the user (or
		// timed out) for this very request: act on it, never ask again.
		if d, ok := h.saved[phase]; ok {
			cr.saved = &savedAnswer{d: d, granted: h.granted[d.RequestID], amended: h.amended}
		}
		return t.askAndRun(ctx, cr, phase, h.reason)
	case states.Sandboxed, states.Unsandboxed:
		if out, ok := h.outcomes[last]; ok && last > 0 {
			return t.afterRun(ctx, cr, out, h.started[last].Sandbox)
		}
		return t.interrupt(ctx, cr, states.CauseCrashRecovery, "found in flight after a crash; outcome unknown; not run again")
	case states.RetryPrompt:
		return t.retry(ctx, cr, h.outcomes[last])
	case states.Denied:
		cr.feedback = h.feedback
		return t.deny2done(ctx, cr, states.Cause(h.lastCause), h.lastReason)
	case states.Done:
		if out, ok := h.outcomes[last]; ok {
			text, success := cr.prep.Shape(out)
			return t.output(cr, text, success, StatusCompleted, out.ExitCode, out.Output)
		}
		return t.output(cr, "Ended: "+h.lastReason, false, StatusFailed, -1, "")
	}
	return callResult{call: cr.call}, fmt.Errorf("call %s: cannot resume from state %s", cr.call.ID, cr.m.Current())
}

// deny2done finishes a call already in denied.
func (t *turn) deny2done(ctx context.Context, cr *callRun, cause states.Cause, reason string) (callResult, error) {
	if err := cr.fire(ctx, states.Finish, cause, reason); err != nil {
		return callResult{call: cr.call}, err
	}
	return t.output(cr, "Not run: "+reason+feedbackNote(cr.feedback), false, StatusDeclined, -1, "")
}

// Resume restores a session and records, durably, that this process took
// it over. Replay restarts its engine at that record.
func Resume(cfg Config, log Log, records []events.Record, resumed events.SessionResumed) (*Session, error) {
	s, err := Restore(cfg, log, records)
	if err != nil {
		return nil, err
	}
	if _, err := s.rec.appendDurable("", resumed); err != nil {
		return nil, err
	}
	return s, nil
}
