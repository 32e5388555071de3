package telemetry

import (
	"context"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/replay/audit"
	"github.com/docket-engine/docket/states"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Builder turns a session's records, in seq order, into spans: Record for
// each, then End. It is not safe for concurrent use.
type Builder struct {
	tracer trace.Tracer
	red    redactor
	feeder *audit.Feeder
	// quiet: records up to this seq were exported by an earlier process
	// (a resumed session): their spans are rebuilt as parents but not
	// ended, so they are not sent twice.
	quiet uint64

	session  string
	policy   audit.Policy
	turn     *openTurn
	turns    map[string]*openTurn // by turn id, until ended
	callTurn map[string]*openTurn // the turn each call belongs to
	callLast map[string]uint64    // the last seq of each call
	lastAt   int64
	// ending: End is emitting the calls still open; sendOpen: send them.
	ending, sendOpen bool
}

// openTurn is a turn span not yet ended.
type openTurn struct {
	id   string
	seq  uint64
	span trace.Span
	ctx  context.Context
}

// NewBuilder starts spans on tracer (whose provider must use this
// package's id generator: see NewProvider). Records up to quietUpTo are
// read but their finished turns and calls are not sent.
func NewBuilder(tracer trace.Tracer, argv ArgvMode, quietUpTo uint64) *Builder {
	b := &Builder{tracer: tracer, red: redactor(argv), quiet: quietUpTo, turns: map[string]*openTurn{},
		callTurn: map[string]*openTurn{}, callLast: map[string]uint64{}}
	b.feeder = audit.NewFeeder("", audit.Options{}, (*callSink)(b))
	return b
}

// Record reads one record.
func (b *Builder) Record(r events.Record) {
	b.lastAt = r.At
	switch r.Kind {
	case events.KindSessionStarted, events.KindUserTurn, events.KindTurnEnded:
		body, err := r.Decode()
		if err != nil {
			break
		}
		switch v := body.(type) {
		case *events.SessionStarted:
			b.session = v.SessionID
			c := v.Config
			b.policy = audit.Policy{ApprovalPolicy: c.ApprovalPolicy, SandboxMode: c.SandboxMode, NetworkAccess: c.NetworkAccess}
		case *events.UserTurn:
			b.startTurn(r, v.TurnID)
		case *events.TurnEnded:
			b.endTurn(r, v)
		}
	}
	if r.CallID != "" {
		if _, ok := b.callTurn[r.CallID]; !ok && b.turn != nil {
			b.callTurn[r.CallID] = b.turn
		}
		b.callLast[r.CallID] = r.Seq
	}
	// The audit's sink never fails here (callSink returns nil).
	_ = b.feeder.Feed(r)
}

// End finishes the builder. With open, what is still open is sent as it
// stands: calls as pending, turns that never ended as unfinished, ended at
// the last record (docket export: the journal is all there will be).
// Without, they are not sent (a live session: a resumed process, or a
// later docket export, sends them once they are finished, under the same
// ids).
func (b *Builder) End(open bool) {
	b.ending, b.sendOpen = true, open
	_ = b.feeder.End() // callSink never fails
	if !open {
		b.turns = map[string]*openTurn{}
		return
	}
	for _, t := range b.turns {
		t.span.SetAttributes(attribute.String("docket.turn.status", "unfinished"))
		t.span.End(trace.WithTimestamp(time.Unix(0, b.lastAt)))
	}
	b.turns = map[string]*openTurn{}
}

func (b *Builder) startTurn(r events.Record, id string) {
	ctx := withIDs(context.Background(), TraceID(b.session), TurnSpanID(b.session, r.Seq))
	ctx, span := b.tracer.Start(ctx, "docket.turn", trace.WithNewRoot(), trace.WithTimestamp(time.Unix(0, r.At)),
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String("docket.session.id", b.session), attribute.String("docket.turn.id", id),
			attribute.Int64("docket.turn.seq", int64(r.Seq))))
	t := &openTurn{id: id, seq: r.Seq, span: span, ctx: ctx}
	b.turn = t
	b.turns[id] = t
}

func (b *Builder) endTurn(r events.Record, v *events.TurnEnded) {
	t, ok := b.turns[v.TurnID]
	if !ok {
		return
	}
	delete(b.turns, v.TurnID)
	if r.Seq <= b.quiet {
		return // sent by the process that ended it
	}
	t.span.SetAttributes(attribute.String("docket.turn.status", string(v.Status)),
		attribute.Int64("docket.turn.input_tokens", v.Usage.InputTokens), attribute.Int64("docket.turn.output_tokens", v.Usage.OutputTokens))
	if v.Status == events.TurnFailed {
		t.span.SetStatus(codes.Error, b.red.text(v.Message))
	}
	t.span.End(trace.WithTimestamp(time.Unix(0, r.At)))
}

// callSink receives the audit's finished calls.
type callSink Builder

func (*callSink) Begin(*audit.Report) error { return nil }
func (*callSink) End(*audit.Report) error   { return nil }

func (s *callSink) Call(c *audit.Call) error {
	(*Builder)(s).callSpan(c)
	return nil
}

func (b *Builder) callSpan(c *audit.Call) {
	if b.callLast[c.CallID] <= b.quiet || (b.ending && !b.sendOpen) {
		return
	}
	parent := context.Background()
	if t := b.callTurn[c.CallID]; t != nil {
		parent = t.ctx
	}
	start, end := callTimes(c)
	if start.IsZero() {
		start = time.Unix(0, b.lastAt)
	}
	if end.Before(start) {
		end = start
	}
	ctx := withIDs(parent, TraceID(b.session), CallSpanID(b.session, c.CallID))
	attrs := []attribute.KeyValue{
		attribute.String("docket.session.id", b.session),
		attribute.String("docket.call.id", c.CallID),
		attribute.String("docket.tool", c.Tool),
		attribute.String("docket.argv.digest", ArgvDigestOf(c.Command)),
		attribute.String("docket.cwd", c.Cwd),
		attribute.String("docket.policy.approval", b.policy.ApprovalPolicy),
		attribute.String("docket.policy.sandbox_mode", b.policy.SandboxMode),
		attribute.Bool("docket.policy.network", b.policy.NetworkAccess),
		attribute.String("docket.final_state", c.FinalState),
		attribute.String("docket.outcome", c.Outcome),
		attribute.Bool("docket.ran_unsandboxed", c.RanUnsandboxed),
	}
	if argv := b.red.argv(c.Command); argv != nil {
		attrs = append(attrs, attribute.StringSlice("docket.argv", argv), attribute.String("docket.command", joinArgv(argv)))
	}
	if c.ExitCode != nil {
		attrs = append(attrs, attribute.Int("docket.exit_code", *c.ExitCode))
	}
	if c.RanUnsandboxed {
		attrs = append(attrs, attribute.String("docket.why", b.red.text(c.WhyUnsandboxed)))
	}
	if sb := lastSandbox(c); sb != nil {
		attrs = append(attrs, attribute.String("docket.sandbox.mode", string(sb.Mode)), attribute.StringSlice("docket.sandbox.layers", sb.Layers))
	} else {
		attrs = append(attrs, attribute.String("docket.sandbox.mode", "none"))
	}
	if len(c.Violations) > 0 {
		attrs = append(attrs, attribute.StringSlice("docket.violations", c.Violations))
	}
	attrs = append(attrs, networkCounts(c)...)
	_, span := b.tracer.Start(ctx, "docket.call "+c.Tool, trace.WithTimestamp(start), trace.WithAttributes(attrs...))
	b.callEvents(span, c)
	switch c.Outcome {
	case audit.OutcomeFailed, audit.OutcomeInterrupted, audit.OutcomeInvalid:
		span.SetStatus(codes.Error, c.Outcome)
	}
	span.End(trace.WithTimestamp(end))
}

// callEvents adds the call's transitions, approval requests and answers,
// and hook verdicts as span events, each at its own time.
func (b *Builder) callEvents(span trace.Span, c *audit.Call) {
	for _, t := range c.Transitions {
		span.AddEvent("docket.transition", trace.WithTimestamp(parseAt(t.At)), trace.WithAttributes(
			attribute.Int64("docket.seq", int64(t.Seq)), attribute.String("docket.from", t.From),
			attribute.String("docket.event", t.Event), attribute.String("docket.to", t.To),
			attribute.String("docket.cause", t.Cause), attribute.String("docket.decision_source", decisionSource(c, t)),
			attribute.String("docket.reason", b.red.text(t.Reason))))
	}
	for _, r := range c.Requests {
		span.AddEvent("docket.approval_requested", trace.WithTimestamp(parseAt(r.At)), trace.WithAttributes(
			attribute.Int64("docket.seq", int64(r.Seq)), attribute.String("docket.approval.phase", string(r.Phase)),
			attribute.String("docket.approval.kind", string(r.Kind)), attribute.String("docket.reason", b.red.text(r.Reason))))
	}
	for _, d := range c.Decisions {
		span.AddEvent("docket.approval", trace.WithTimestamp(parseAt(d.At)), trace.WithAttributes(
			attribute.Int64("docket.seq", int64(d.Seq)), attribute.String("docket.approval.phase", string(d.Phase)),
			attribute.String("docket.approval.decision", string(d.Decision)), attribute.String("docket.approval.who", string(d.Source)),
			attribute.String("docket.approval.at", d.At)))
	}
	for _, h := range c.Hooks {
		span.AddEvent("docket.hook", trace.WithAttributes(
			attribute.Int64("docket.seq", int64(h.Seq)), attribute.String("docket.hook.stage", h.Stage),
			attribute.String("docket.hook.name", h.Name), attribute.String("docket.hook.decision", h.Decision),
			attribute.String("docket.hook.error", b.red.text(h.Error)), attribute.String("docket.reason", b.red.text(h.Reason))))
	}
	b.networkEvents(span, c)
}

// decisionSource says who decided a transition: the answering person or
// program for an approval, else the kind of rule behind the cause.
func decisionSource(c *audit.Call, t audit.Transition) string {
	cause := states.Cause(t.Cause)
	switch {
	case cause == states.CauseUserDenied || cause == states.CauseUserAbort || cause.UserDecided() && cause != states.CauseSessionGrant && cause != states.CauseAlreadyApproved:
		for i := len(c.Decisions) - 1; i >= 0; i-- {
			if c.Decisions[i].Seq < t.Seq {
				return string(c.Decisions[i].Source)
			}
		}
		return "user"
	case cause == states.CauseSessionGrant || cause == states.CauseAlreadyApproved:
		return "earlier_approval"
	case cause == states.CauseHookDenied || cause == states.CauseHookFailed || cause == states.CauseHookAsk:
		return "hook"
	case cause == states.CauseRuleAllow || cause == states.CauseRulePrompt || cause == states.CauseRuleForbidden:
		return "rules"
	case cause == states.CauseApprovalTimeout:
		return "timeout"
	case cause == states.CauseCompleted || cause == states.CauseSandboxDenial || cause == states.CauseInvalidCall ||
		cause == states.CauseCrashRecovery || cause == states.CauseCancelled || cause == states.CauseDeadline || cause == states.CauseSandboxUnavailable:
		return "engine"
	}
	return "policy"
}

// lastSandbox is the sandbox of the call's last run, nil when it ran
// without one (or never ran).
func lastSandbox(c *audit.Call) *audit.Sandbox {
	for i := len(c.Attempts) - 1; i >= 0; i-- {
		if c.Attempts[i].Seq > 0 {
			return c.Attempts[i].Sandbox
		}
	}
	return nil
}

// callTimes are the first and last times the call's records show.
func callTimes(c *audit.Call) (start, end time.Time) {
	see := func(s string) {
		t := parseAt(s)
		if t.IsZero() {
			return
		}
		if start.IsZero() || t.Before(start) {
			start = t
		}
		if t.After(end) {
			end = t
		}
	}
	for _, t := range c.Transitions {
		see(t.At)
	}
	for _, r := range c.Requests {
		see(r.At)
	}
	for _, a := range c.Attempts {
		see(a.At)
	}
	return start, end
}

func parseAt(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
