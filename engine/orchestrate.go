package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
	"github.com/docket-engine/docket/states/policy"
)

// callResult is how a call ended, for the turn loop.
type callResult struct {
	call    Call
	output  string
	success bool
	parked  bool // left in awaitingDecision; the session parks
	abort   bool // the user chose abort: the turn stops
	// parkedAs names what a parked spawn_agent call waits for: its
	// subagent's calls, as NAME/CALL_ID.
	parkedAs []string
}

// errParked unwinds a call that is waiting for a decision nobody can give now.
var errParked = errors.New("parked")

// callRun is one call in flight.
type callRun struct {
	t     *turn
	call  Call
	m     *states.Machine
	prep  *PreparedCall
	asked map[events.Phase]bool // phases the user approved
	risk  *events.RiskAssessment
	idx   int // position in the response, for the approval gate
	// denied is the sandboxed outcome a retry prompt is about, so a
	// declined retry still tells the model what the sandboxed run did.
	denied *events.ExecOutcome
	// feedback is what the user typed with a denial, for the model.
	feedback string
	// saved is an answer a resumed session found journaled for the
	// pending request; ask uses it instead of asking again.
	saved *savedAnswer
	// hookForced: the initial prompt was asked only because a pre_tool
	// hook said "ask".
	hookForced bool
	// poll is what a unified exec call collected from its process, for
	// the completed notice.
	poll *events.ProcessPoll
}

func (t *turn) newRun(c Call, idx int) *callRun {
	return &callRun{t: t, call: c, m: t.s.machine(c.ID), asked: map[events.Phase]bool{}, idx: idx}
}

func (cr *callRun) fire(ctx context.Context, ev states.Event, cause states.Cause, reason string) error {
	_, err := cr.m.Fire(ctx, ev, cause, reason)
	return err
}

// orchestrate drives one call from wantsApproval to done (or parks it in
// awaitingDecision). The order is DESIGN.md section 3: requirement,
// approval, sandbox selection, write-ahead, run, denial evidence, retry.
func (t *turn) orchestrate(ctx context.Context, idx int, c Call) (res callResult, err error) {
	s := t.s
	cr := t.newRun(c, idx)
	defer t.gate.pass(idx)
	res.call = c
	if cr.m.Current() != states.WantsApproval {
		return t.resumeCall(ctx, cr)
	}
	tool, ok := s.registry.Lookup(c.Name)
	if !ok {
		return t.invalid(ctx, cr, fmt.Sprintf("unknown tool %q", c.Name))
	}
	if want := tool.Spec().Kind; want != c.Kind && !acceptsKind(tool, c.Kind) {
		return t.invalid(ctx, cr, fmt.Sprintf("tool %q is a %s tool but was called as a %s tool", c.Name, want, c.Kind))
	}
	prep, perr := tool.Prepare(c, s.env())
	if perr != nil {
		return t.invalid(ctx, cr, perr.Error())
	}
	cr.prep = prep
	if prep.Start.Agent != nil {
		return t.runAgent(ctx, cr)
	}
	req := prep.Requirement
	if req.Kind == policy.Forbidden {
		// No hook can lift a forbidding rule, so none is asked.
		return t.deny(ctx, cr, req.Cause, "forbidden: "+req.Reason, StatusDeclined)
	}
	hv, err := t.preHooks(ctx, cr)
	if err != nil {
		return res, err
	}
	switch hv.decision {
	case events.HookDeny:
		return t.deny(ctx, cr, hv.cause, hv.reason, StatusDeclined)
	case events.HookAsk:
		if req.Kind == policy.Skip || s.decider.AllGranted(prep.Keys) {
			return t.hookAsk(ctx, cr, idx, hv)
		}
		req.Reason = joinReasons(req.Reason, hv.reason)
	}
	switch req.Kind {
	case policy.Skip:
		sandbox, cause := s.decider.SandboxFor(prep, "")
		if prep.Plan != nil {
			sandbox, cause = *prep.Plan, req.Cause
		}
		return t.run(ctx, cr, 1, sandbox, cause, skipReason(req))
	}
	if s.decider.AllGranted(prep.Keys) {
		sandbox, _ := s.decider.SandboxFor(prep, states.CauseSessionGrant)
		return t.run(ctx, cr, 1, sandbox, states.CauseSessionGrant, "approved for this session earlier")
	}
	if err := t.gate.wait(ctx, idx); err != nil {
		cause, why := stopCause(ctx)
		return t.deny(ctx, cr, cause, why+" before it was asked", StatusDeclined)
	}
	if err := cr.fire(ctx, states.Ask, req.Cause, req.Reason); err != nil {
		return res, err
	}
	return t.askAndRun(ctx, cr, events.PhaseInitial, req.Reason)
}

func skipReason(req policy.Requirement) string {
	if req.Reason != "" {
		return req.Reason
	}
	return "no approval needed"
}

// askAndRun sends an approval request for the call (now in
// awaitingDecision) and acts on the answer.
func (t *turn) askAndRun(ctx context.Context, cr *callRun, phase events.Phase, reason string) (callResult, error) {
	s := t.s
	ans, err := t.ask(ctx, cr, phase, reason)
	if errors.Is(err, errParked) {
		return callResult{call: cr.call, parked: true}, nil
	}
	if err != nil {
		return callResult{call: cr.call}, err
	}
	// After an abort no later call may be asked: the turn is cancelled
	// before this call passes the gate, so the calls waiting there see the
	// abort (gate.wait checks the context after every pass).
	if ans.Decision == events.Abort && t.abort != nil {
		t.abort()
	}
	if phase == events.PhaseInitial {
		t.gate.pass(cr.idx)
	}
	switch ans.Decision {
	case events.Approved, events.ApprovedForSession, events.ApprovedExecpolicyAmendment:
		// An approval a hook forced onto a call the policy would have run
		// unasked does not count as "approved" at the retry step: a hook's
		// ask may only tighten, never skip the retry prompt.
		cr.asked[phase] = !(phase == events.PhaseInitial && cr.hookForced)
		cause := states.CauseUserApproved
		switch ans.Decision {
		case events.ApprovedForSession:
			cause = states.CauseUserApprovedForSession
		case events.ApprovedExecpolicyAmendment:
			cause = states.CauseUserAmendment
		}
		if phase == events.PhaseRetry {
			return t.run(ctx, cr, 2, events.SandboxPlan{Mode: events.SandboxNone}, cause, "user approved running it without the sandbox")
		}
		sandbox, scause := s.decider.SandboxFor(cr.prep, cause)
		if scause == states.CauseOutOfProcess {
			cause = scause
		}
		return t.run(ctx, cr, 1, sandbox, cause, "approved by "+ans.Source.String())
	case events.Abort:
		res, err := t.deny(ctx, cr, states.CauseUserAbort, "the user aborted the turn", StatusDeclined)
		res.abort = true
		return res, err
	case events.TimedOut:
		return t.deny(ctx, cr, states.CauseApprovalTimeout, "no decision arrived in time; not run", StatusDeclined)
	default:
		cr.feedback = userFeedback(ans)
		return t.deny(ctx, cr, states.CauseUserDenied, "the user denied it", StatusDeclined)
	}
}

// ask journals an approval request (durably), asks the approver, and
// journals the answer before it is acted on.
func (t *turn) ask(ctx context.Context, cr *callRun, phase events.Phase, reason string) (Answer, error) {
	s := t.s
	p := cr.prep
	req := events.ApprovalRequested{
		CallID: cr.call.ID, TurnID: t.id, RequestID: cr.call.ID + "/" + phase.String(), Phase: phase,
		Kind: p.ApprovalKind, Command: p.Command, Cwd: p.Cwd, Reason: reason,
		ProposedAmendment: p.Requirement.ProposedAmendment, Keys: p.Keys, Paths: p.Paths,
	}
	if phase == events.PhaseRetry {
		req.ProposedAmendment = nil
		req.Risk = cr.risk
	}
	if sv := cr.saved; sv != nil && sv.d.Phase == phase && sv.d.RequestID == req.RequestID {
		cr.saved = nil
		return t.applySaved(cr, req, sv)
	}
	if _, err := s.rec.appendDurable(cr.call.ID, req); err != nil {
		return Answer{}, err
	}
	areq := t.approvalRequest(cr, req)
	s.notify(Notice{Type: NoticeApproval, TurnID: t.id, CallID: cr.call.ID, Approval: &req,
		Means: ApprovalMeaning{Unsandboxed: areq.Unsandboxed, RetryUnsandboxed: areq.RetryUnsandboxed, ModelJustification: areq.ModelJustification}})
	actx, cancel := ctx, context.CancelFunc(func() {})
	if s.cfg.ApprovalTimeout > 0 {
		actx, cancel = context.WithTimeout(ctx, s.cfg.ApprovalTimeout)
	}
	ans, err := s.approver.Decide(actx, areq)
	deadline := actx.Err() == context.DeadlineExceeded
	cancel()
	switch {
	case errors.Is(err, ErrNoDecision):
		return Answer{}, errParked
	case err != nil && deadline && ctx.Err() == nil:
		ans = Answer{Decision: events.TimedOut, Source: events.SourceTimeout}
	case err != nil && ctx.Err() != nil:
		return Answer{}, ctx.Err()
	case err != nil:
		return Answer{}, fmt.Errorf("call %s: approver: %w", cr.call.ID, err)
	}
	at := ans.At
	if at.IsZero() {
		at = s.rec.now()
	}
	d := events.Decision{CallID: cr.call.ID, RequestID: req.RequestID, Phase: phase, Decision: ans.Decision,
		Source: ans.Source, At: at.UnixNano(), Amendment: ans.Amendment, Feedback: userFeedback(ans)}
	if _, err := s.rec.append(cr.call.ID, d); err != nil {
		return Answer{}, err
	}
	if fc, ok := s.cfg.Faults.(FaultCommits); ok && fc.CommitAt(pointDecisionAppended) {
		if err := s.rec.sync(); err != nil {
			return Answer{}, err
		}
	}
	s.cfg.Faults.Hit(pointDecisionAppended)
	return t.answerEffects(cr, req, ans, false, false)
}

// answerEffects journals and applies what an answer brings besides itself:
// the session grant, the saved rule. Those already journaled (granted,
// amended: a resumed session found them) are not done again.
func (t *turn) answerEffects(cr *callRun, req events.ApprovalRequested, ans Answer, granted, amended bool) (Answer, error) {
	s, p := t.s, cr.prep
	switch ans.Decision {
	case events.ApprovedForSession:
		if granted {
			break
		}
		if _, err := s.rec.append(cr.call.ID, events.Grant{CallID: cr.call.ID, RequestID: req.RequestID, Keys: p.Keys}); err != nil {
			return Answer{}, err
		}
		s.decider.Grant(p.Keys)
	case events.ApprovedExecpolicyAmendment:
		pattern := ans.Amendment
		if len(pattern) == 0 {
			pattern = p.Requirement.ProposedAmendment
		}
		if len(pattern) == 0 {
			// Nothing safe to save: treat as a plain approval.
			ans.Decision = events.Approved
			break
		}
		if amended {
			break
		}
		ra, err := s.decider.Amend(cr.call.ID, pattern)
		if err != nil {
			return Answer{}, fmt.Errorf("call %s: save rule: %w", cr.call.ID, err)
		}
		if _, err := s.rec.append(cr.call.ID, ra); err != nil {
			return Answer{}, err
		}
	}
	return ans, nil
}

// run records the move into sandboxed/unsandboxed, makes it durable
// (write-ahead), runs the call, and handles a sandbox denial.
func (t *turn) run(ctx context.Context, cr *callRun, attempt int, sandbox events.SandboxPlan, cause states.Cause, reason string) (callResult, error) {
	s := t.s
	start := cr.prep.Start
	start.CallID, start.Attempt, start.Sandbox = cr.call.ID, attempt, sandbox
	rr := RunRequest{ExecStarted: start, OutputCap: s.cfg.CaptureCap}
	if sandbox.Sandboxed() {
		if err := s.runner.Check(ctx, rr); err != nil {
			o := events.ExecOutcome{CallID: cr.call.ID, Attempt: attempt, SandboxError: err.Error(), ExitCode: -1}
			if _, aerr := s.rec.append(cr.call.ID, o); aerr != nil {
				return callResult{call: cr.call}, aerr
			}
			if cr.m.Current() == states.RetryPrompt {
				return t.finish(ctx, cr, o, states.CauseSandboxUnavailable, "no sandbox could be had: "+err.Error())
			}
			return t.deny(ctx, cr, states.CauseSandboxUnavailable, "no sandbox could be had, so it was not run: "+err.Error(), StatusFailed)
		}
	}
	if err := t.assignProcess(cr, &start); err != nil {
		return callResult{call: cr.call}, err
	}
	rr.ExecStarted = start
	rr.Bridge = s.bridgeFor(t.id, start)
	ev := states.RunSandboxed
	if !sandbox.Sandboxed() {
		ev = states.RunUnsandboxed
	}
	if err := cr.fire(ctx, ev, cause, reason); err != nil {
		return callResult{call: cr.call}, err
	}
	var once sync.Once
	rr.OnOutput = func(stream string, chunk []byte) {
		once.Do(func() { s.cfg.Faults.Hit("while_running") })
		s.notify(Notice{Type: NoticeCallOutput, TurnID: t.id, CallID: cr.call.ID, Stream: stream, Text: string(chunk)})
	}
	// The call's sandbox is prepared while its record is made durable;
	// its command starts only after (Preparer).
	var pending PreparedRun
	if pr, ok := s.runner.(Preparer); ok {
		pending, _ = pr.Prepare(ctx, rr)
	}
	if _, err := s.rec.appendDurable(cr.call.ID, start); err != nil {
		if pending != nil {
			pending.Abandon()
		}
		return callResult{call: cr.call}, err
	}
	s.notify(Notice{Type: NoticeCallStarted, TurnID: t.id, CallID: cr.call.ID, Tool: toolName(cr), Command: cr.prep.Command,
		Cwd: cr.prep.Cwd, Changes: cr.prep.Changes, Server: cr.prep.Server, MCPTool: cr.prep.MCPTool, Arguments: cr.prep.Arguments})
	var out events.ExecOutcome
	var err error
	if pending != nil {
		out, err = pending.Start()
	} else {
		out, err = s.runner.Run(ctx, rr)
	}
	if err != nil && ctx.Err() != nil {
		cause, why := stopCause(ctx)
		return t.interrupt(ctx, cr, cause, why+" while it ran; outcome unknown")
	}
	if err != nil {
		out = events.ExecOutcome{ExitCode: -1, Error: err.Error()}
	}
	out.CallID, out.Attempt = cr.call.ID, attempt
	out.Denial = nil
	if sandbox.Sandboxed() && out.SandboxError == "" && classifiable(start, out) {
		out.Denial = s.decider.Classify(out, sandbox, start.Cwd)
	}
	if _, err := s.rec.append(cr.call.ID, out); err != nil {
		return callResult{call: cr.call}, err
	}
	s.procs.observed(start, out)
	return t.afterRun(ctx, cr, out, sandbox)
}

// afterRun acts on a recorded outcome: finish, or a sandbox denial.
func (t *turn) afterRun(ctx context.Context, cr *callRun, out events.ExecOutcome, sandbox events.SandboxPlan) (callResult, error) {
	if out.Denial == nil || !sandbox.Sandboxed() {
		return t.finish(ctx, cr, out, states.CauseCompleted, summarize(out))
	}
	if err := cr.fire(ctx, states.SandboxDenied, states.CauseSandboxDenial, denialSentence(out.Denial)); err != nil {
		return callResult{call: cr.call}, err
	}
	return t.retry(ctx, cr, out)
}

// retry applies the retry rule to a call in retryPrompt.
func (t *turn) retry(ctx context.Context, cr *callRun, denied events.ExecOutcome) (callResult, error) {
	s := t.s
	allowed, why := s.decider.RetryAllowed(cr.prep)
	if !allowed {
		return t.finish(ctx, cr, denied, states.CauseRetryNotAllowed, why)
	}
	if cr.asked[events.PhaseInitial] {
		return t.run(ctx, cr, 2, events.SandboxPlan{Mode: events.SandboxNone}, states.CauseAlreadyApproved, "the user approved this call already; running it again without the sandbox")
	}
	if s.decider.AllGranted(cr.prep.Keys) {
		// DESIGN invariant 3: a session grant the user gave counts at the
		// retry step as at the first (Codex skips this prompt too).
		return t.run(ctx, cr, 2, events.SandboxPlan{Mode: events.SandboxNone}, states.CauseSessionGrant, "the user approved this for the session; running it again without the sandbox")
	}
	cr.denied = &denied
	cr.risk = s.assessRisk(ctx, cr, denied)
	reason := "command failed; retry without sandbox?"
	if err := cr.fire(ctx, states.Ask, states.CauseSandboxDenial, reason); err != nil {
		return callResult{call: cr.call}, err
	}
	return t.askAndRun(ctx, cr, events.PhaseRetry, reason)
}

// finish moves a call to done and shapes its output.
func (t *turn) finish(ctx context.Context, cr *callRun, out events.ExecOutcome, cause states.Cause, reason string) (callResult, error) {
	sandboxed := cr.m.Current() != states.Unsandboxed
	if err := cr.fire(ctx, states.Finish, cause, reason); err != nil {
		return callResult{call: cr.call}, err
	}
	text, ok := cr.prep.Shape(out)
	cr.poll = out.Process
	status := StatusCompleted
	if !ok {
		status = StatusFailed
	}
	note, err := t.postHooks(ctx, cr, out, sandboxed, ok)
	if err != nil {
		return callResult{call: cr.call}, err
	}
	return t.output(cr, text+note, ok, status, out.ExitCode, out.Output)
}

// deny moves a call through denied to done.
func (t *turn) deny(ctx context.Context, cr *callRun, cause states.Cause, reason string, status CallStatus) (callResult, error) {
	if err := cr.fire(ctx, states.Deny, cause, reason); err != nil {
		return callResult{call: cr.call}, err
	}
	if err := cr.fire(ctx, states.Finish, cause, reason); err != nil {
		return callResult{call: cr.call}, err
	}
	if cr.denied != nil {
		text, _ := cr.prep.Shape(*cr.denied)
		return t.output(cr, text+"\nIt was not run again without the sandbox: "+reason+feedbackNote(cr.feedback), false, StatusFailed, cr.denied.ExitCode, cr.denied.Output)
	}
	return t.output(cr, "Not run: "+reason+feedbackNote(cr.feedback), false, status, -1, "")
}

// invalid fails a call that cannot be understood.
func (t *turn) invalid(ctx context.Context, cr *callRun, reason string) (callResult, error) {
	if err := cr.fire(ctx, states.Fail, states.CauseInvalidCall, reason); err != nil {
		return callResult{call: cr.call}, err
	}
	return t.output(cr, "Invalid call: "+reason, false, StatusFailed, -1, "")
}

// interrupt ends a call that was cancelled or caught mid-run by a crash.
func (t *turn) interrupt(ctx context.Context, cr *callRun, cause states.Cause, reason string) (callResult, error) {
	if err := cr.fire(context.WithoutCancel(ctx), states.Interrupt, cause, reason); err != nil {
		return callResult{call: cr.call}, err
	}
	return t.output(cr, "Interrupted: "+reason, false, StatusFailed, -1, "")
}

// output journals the text the model will see for a call.
func (t *turn) output(cr *callRun, text string, ok bool, status CallStatus, exit int, agg string) (callResult, error) {
	s := t.s
	item := outputItemOK(cr.call, text, ok)
	if _, err := s.rec.append(cr.call.ID, events.ToolOutput{CallID: cr.call.ID, Type: item.Type, Output: text, Success: ok}); err != nil {
		return callResult{call: cr.call}, err
	}
	n := Notice{Type: NoticeCallCompleted, TurnID: t.id, CallID: cr.call.ID, Tool: toolName(cr), Status: status, ExitCode: exit, Text: agg}
	n.Output = text
	if cr.prep != nil {
		n.Command, n.Cwd, n.Changes = cr.prep.Command, cr.prep.Cwd, cr.prep.Changes
		n.Server, n.MCPTool, n.Arguments = cr.prep.Server, cr.prep.MCPTool, cr.prep.Arguments
		n.Agent = cr.prep.Start.Agent
		n.Process = cr.poll
		if cr.prep.ApprovalKind == events.ApprovalMCP {
			n.Text = text
		}
	}
	if cr.prep == nil || n.Agent != nil {
		// Clients show what the model asked for: a subagent's arguments,
		// or those of a call refused before it was understood.
		n.Arguments = cr.call.Payload
	}
	s.notify(n)
	return callResult{call: cr.call, output: text, success: ok}, nil
}

func summarize(o events.ExecOutcome) string {
	switch {
	case o.Process != nil && o.Process.Running && o.Error == "" && o.SandboxError == "":
		// The call is done; its process is not (DESIGN 2.1).
		return fmt.Sprintf("running, session %d", o.Process.ID)
	case o.SandboxError != "":
		return "the sandbox failed to start: " + o.SandboxError
	case o.Error != "":
		return "could not start: " + o.Error
	case o.TimedOut:
		return fmt.Sprintf("timed out after %s", time.Duration(o.DurationNs).Round(time.Millisecond))
	case o.Killed != "":
		return "killed: " + strings.ReplaceAll(o.Killed, "_", " ")
	case o.Signal != "":
		return "killed by " + o.Signal
	}
	return fmt.Sprintf("exit %d", o.ExitCode)
}

// denialSentence says what the sandbox refused, from the evidence:
// "sandbox denied it: write_denied (EROFS on /etc/x)".
func denialSentence(d *events.DenialEvidence) string {
	var detail []string
	if d.Errno != "" {
		detail = append(detail, d.Errno)
	}
	if d.Signal != "" {
		detail = append(detail, d.Signal)
	}
	if d.Path != "" {
		detail = append(detail, "on "+d.Path)
	}
	s := "sandbox denied it: " + d.Reason
	if len(detail) > 0 {
		s += " (" + strings.Join(detail, " ") + ")"
	}
	return s
}
