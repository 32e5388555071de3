package audit

import (
	"fmt"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/layers"
	"github.com/docket-engine/docket/states"
	"github.com/docket-engine/docket/states/policy"
)

// tracker is the audit of one call while the call is open.
type tracker struct {
	// writesTo and startedBy name the process a write_stdin call wrote
	// to and the call that started it.
	writesTo  int
	startedBy string
	c         Call
	// event, when set, makes this entry of the auditor's order a session
	// event rather than a call: it waits behind the calls begun before it.
	event *Event
	// approvalPolicy is the policy the call was decided under when the
	// user changed it mid-session (/approvals); "" for the session's own.
	approvalPolicy string
	complete       bool // done and its tool output recorded: ready to emit
	// resp and pos place the call in the model's responses (the n-th
	// response, from 1; the call's index in it), for refused calls.
	resp, pos int

	state      states.State
	lastEvent  string
	everDenied bool
	phase      events.Phase // phase of the last approval request
	askCause   string       // cause and reason of the last ask transition
	askReason  string
	approved   map[events.Phase]Decision // approving decision by phase
	last       *events.Decision          // the last decision recorded
	denial     *events.DenialEvidence
	unsb       *unsandboxedRun
	mcp        bool
	output     *events.ToolOutput
	violations []Violation
}

// unsandboxedRun is what was known when the call moved into unsandboxed;
// why_unsandboxed is phrased from it once the call is complete.
type unsandboxedRun struct {
	seq       uint64
	from      states.State
	cause     states.Cause
	reason    string
	phase     events.Phase
	decision  *Decision // the approving decision that phase rests on
	initial   *Decision // the first-phase approval, for already_approved
	denial    *events.DenialEvidence
	askCause  string
	askReason string
	unrecord  bool // ran without a sandbox with no transition into unsandboxed
}

func newTracker(id string) *tracker {
	return &tracker{c: Call{CallID: id}, state: states.WantsApproval, approved: map[events.Phase]Decision{}}
}

func (t *tracker) violate(seq uint64, format string, a ...any) {
	t.violations = append(t.violations, Violation{CallID: t.c.CallID, Seq: seq, Message: fmt.Sprintf(format, a...)})
}

// transition applies one transition record and checks it against the table
// and the call's history.
func (a *auditor) transition(t *tracker, r events.Record, v *events.Transition) {
	from, to, ev := states.State(v.From), states.State(v.To), states.Event(v.Event)
	t.c.Transitions = append(t.c.Transitions, Transition{Seq: r.Seq, From: v.From, Event: v.Event, To: v.To,
		Cause: v.Cause, Reason: v.Reason, At: fmtTime(r.At)})
	if from != t.state {
		t.violate(r.Seq, "transition starts in %s but the call was in %s", v.From, t.state)
	}
	if next, ok := states.Next(from, ev); !ok || next != to {
		t.violate(r.Seq, "%s --%s--> %s is not in the state table (invariant 6)", v.From, v.Event, v.To)
	}
	t.state, t.lastEvent = to, v.Event
	cause := states.Cause(v.Cause)
	switch to {
	case states.AwaitingDecision:
		t.askCause, t.askReason = v.Cause, v.Reason
	case states.Denied:
		t.everDenied = true
		if cause == states.CauseUserDenied && t.last != nil && !userSource(t.last.Source) {
			t.violate(r.Seq, "denial recorded as user_denied but the decision came from %q (%s): a time-out or missing approver is not a user denial (invariant 5)",
				t.last.Source, t.last.Decision)
		}
	case states.Unsandboxed:
		a.intoUnsandboxed(t, r.Seq, from, cause, v.Reason)
	}
}

// intoUnsandboxed records the context of the move into unsandboxed and
// checks invariant 3: the cause must justify it, and a cause that claims a
// user's decision must rest on one.
func (a *auditor) intoUnsandboxed(t *tracker, seq uint64, from states.State, cause states.Cause, reason string) {
	u := &unsandboxedRun{seq: seq, from: from, cause: cause, reason: reason, denial: t.denial,
		askCause: t.askCause, askReason: t.askReason}
	if from == states.AwaitingDecision {
		u.phase = t.phase
	}
	if d, ok := t.approved[u.phase]; ok && u.phase != "" {
		u.decision = &d
	}
	if d, ok := t.approved[events.PhaseInitial]; ok {
		u.initial = &d
	}
	if t.unsb == nil || t.unsb.unrecord {
		t.unsb = u
	}
	if !cause.JustifiesUnsandboxed() {
		t.violate(seq, "reached unsandboxed with cause %q, which does not justify running without the sandbox (invariant 3)", cause)
		return
	}
	switch cause {
	case states.CauseUserApproved, states.CauseUserApprovedForSession, states.CauseUserAmendment:
		switch {
		case from != states.AwaitingDecision:
			t.violate(seq, "cause %s claims a user decision, but the call came from %s without asking (invariant 3)", cause, from)
		case u.decision == nil:
			t.violate(seq, "cause %s claims a user decision, but no approving decision was recorded for the %s phase (invariant 3)", cause, orDash(u.phase.String()))
		case !userSource(u.decision.Source):
			t.violate(seq, "cause %s rests on a decision from %q, not from the user (invariant 3)", cause, u.decision.Source)
		}
	case states.CauseAlreadyApproved:
		if u.initial == nil || !userSource(u.initial.Source) {
			t.violate(seq, "cause already_approved, but the user approved nothing in the initial phase (invariant 3)")
		}
	case states.CauseSessionGrant:
		if a.scanned && !a.grantedBefore(seq) {
			t.violate(seq, "cause session_grant, but no session grant was recorded before it (invariant 3)")
		}
	case states.CauseDangerFullAccess, states.CauseExternalSandbox:
		if want := modeOfCause(cause); a.haveHeader && a.head.Policy.SandboxMode != want {
			t.violate(seq, "cause %s, but the session's sandbox mode is %q (invariant 3)", cause, a.head.Policy.SandboxMode)
		}
	}
}

// execStarted checks the write-ahead order (invariant 1) and opens an attempt.
func (a *auditor) execStarted(t *tracker, r events.Record, v *events.ExecStarted) {
	switch t.state {
	case states.Sandboxed, states.Unsandboxed:
	default:
		t.violate(r.Seq, "attempt %d started while the call was in %s: no write-ahead transition into sandboxed or unsandboxed (invariant 1)", v.Attempt, t.state)
	}
	if !v.Sandbox.Sandboxed() && t.state != states.Unsandboxed {
		t.violate(r.Seq, "attempt %d ran without a sandbox, but the call was in %s, not unsandboxed (invariant 3)", v.Attempt, t.state)
		if t.unsb == nil {
			t.unsb = &unsandboxedRun{seq: r.Seq, unrecord: true}
		}
	}
	if v.Server != "" {
		t.mcp = true
	}
	if pc := v.Process; pc != nil && pc.StartedBy != "" {
		t.writesTo, t.startedBy = pc.ID, pc.StartedBy
	}
	if t.c.Tool == "" {
		t.c.Tool = v.Tool
	}
	switch {
	case len(v.Argv) > 0:
		t.c.Command = v.Argv
	case len(t.c.Command) == 0 && v.Tool != "":
		t.c.Command = []string{v.Tool}
	}
	if v.Cwd != "" {
		t.c.Cwd = v.Cwd
	}
	sb := sandboxOf(v.Sandbox, nil)
	t.c.Attempts = append(t.c.Attempts, Attempt{Attempt: v.Attempt, Seq: r.Seq, At: fmtTime(r.At), Sandbox: &sb, limits: v.Sandbox.Limits})
}

// execOutcome completes the attempt it belongs to. A sandbox that could not
// be set up leaves an outcome with no write-ahead record: it becomes an
// attempt of its own.
func (t *tracker) execOutcome(r events.Record, v *events.ExecOutcome) {
	i := len(t.c.Attempts) - 1
	for ; i >= 0; i-- {
		if at := t.c.Attempts[i]; at.Attempt == v.Attempt && at.OutcomeSeq == 0 {
			break
		}
	}
	if i < 0 {
		t.c.Attempts = append(t.c.Attempts, Attempt{Attempt: v.Attempt})
		i = len(t.c.Attempts) - 1
	}
	at := &t.c.Attempts[i]
	at.OutcomeSeq = r.Seq
	if v.Error == "" && v.SandboxError == "" {
		code := v.ExitCode
		at.ExitCode = &code
	}
	at.Signal, at.TimedOut, at.DurationMs = v.Signal, v.TimedOut, v.DurationNs/1e6
	at.Denial, at.Error, at.SandboxError = v.Denial, v.Error, v.SandboxError
	at.Killed, at.Fallbacks = v.Killed, v.Fallbacks
	if at.Sandbox != nil {
		sb := sandboxOf(events.SandboxPlan{Mode: at.Sandbox.Mode, Network: at.Sandbox.Network, Egress: at.Sandbox.Egress,
			LocalBinding: at.Sandbox.LocalBinding, Limits: at.limits}, v.Layers)
		at.Sandbox = &sb
	}
	if v.Denial != nil {
		t.denial = v.Denial
	}
}

// decision records an answer; client names the MCP client, for an answer
// given through elicitation.
func (t *tracker) decision(r events.Record, v *events.Decision, client string) {
	at := v.At
	if at == 0 {
		at = r.At
	}
	d := Decision{Seq: r.Seq, Phase: v.Phase, Decision: v.Decision, Source: v.Source, At: fmtTime(at), Amendment: v.Amendment, Feedback: v.Feedback}
	if v.Source == events.SourceMCPElicitation {
		d.Client = client
	}
	t.c.Decisions = append(t.c.Decisions, d)
	vc := *v
	t.last = &vc
	if v.Decision.IsApproval() {
		t.approved[v.Phase] = d
	}
}

func (t *tracker) approvalRequested(r events.Record, v *events.ApprovalRequested) {
	t.c.Requests = append(t.c.Requests, Request{Seq: r.Seq, Phase: v.Phase, Kind: v.Kind, Reason: v.Reason, At: fmtTime(r.At)})
	t.phase = v.Phase
	if len(t.c.Command) == 0 {
		t.c.Command = v.Command
	}
	if t.c.Cwd == "" {
		t.c.Cwd = v.Cwd
	}
	if v.Kind == events.ApprovalMCP {
		t.mcp = true
	}
	if t.c.Tool == "" {
		switch v.Kind {
		case events.ApprovalExec:
			t.c.Tool = "shell"
		case events.ApprovalPatch:
			t.c.Tool = "apply_patch"
		}
	}
}

func (t *tracker) toolOutput(v *events.ToolOutput) {
	o := *v
	t.output = &o
	if t.state == states.Done {
		t.complete = true
	}
}

// userSource reports whether a decision's source is a person's answer: at
// the terminal, through --decisions, through a client's approver, or
// through an MCP client's elicitation.
func userSource(source events.DecisionSource) bool {
	switch source {
	case events.SourceUser, events.SourceTerminal, events.SourceFlag, events.SourceApprover, events.SourceMCPElicitation:
		return true
	}
	return false
}

func sandboxOf(p events.SandboxPlan, reported []string) Sandbox {
	mode := p.Mode
	if mode == "" {
		mode = events.SandboxNone
	}
	if reported == nil {
		reported = []string{}
	}
	sb := Sandbox{Mode: mode, Layers: reported, Network: p.Network || !p.Sandboxed(), Egress: p.Egress && p.Sandboxed(),
		LocalBinding: p.Egress && p.LocalBinding && p.Sandboxed()}
	if len(reported) > 0 && p.Sandboxed() {
		e := layers.Explain(p, reported)
		sb.InForce, sb.Missing, sb.Limits = e.InForce, e.Missing, e.Limits
	}
	return sb
}

// modeOfCause is the sandbox mode a policy cause stands for.
func modeOfCause(c states.Cause) string {
	if c == states.CauseDangerFullAccess {
		return policy.DangerFullAccess.String()
	}
	return policy.ExternalSandbox.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
