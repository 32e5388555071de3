package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
	"github.com/docket-engine/docket/states/rules"
)

// auditor turns a stream of records into call audits and hands each
// finished call to the sink, in the order the calls began.
type auditor struct {
	opts Options
	sink Sink

	head       Report // header and trailer fields; Calls stays nil
	haveHeader bool
	begun      bool
	cwd        string
	sources    []events.RuleSource
	ruleSet    *rules.Set
	rulesRead  bool
	// scanned is true when the whole journal is read in order, so facts
	// about other calls (grants) are known.
	scanned bool

	open    map[string]*tracker // calls not yet emitted, by id
	order   []*tracker          // calls not yet emitted, in the order they began
	grants  []grant
	amended []Amendment // every amendment, for explaining rule_allow
	seen    int         // calls finished, before filtering
	// lastCalls are the tool calls of the latest model response, in
	// order: an invalid_call record names its call by position.
	lastCalls []events.Item
	responses int // model responses so far
	// approvalNow is the approval policy in force, once a policy_changed
	// record changed it ("" until then: the session's own).
	approvalNow string
	// conv follows turns and compactions for the session's events.
	conv conversation
	// procs follows the session's long-lived processes.
	procs processBook
	// netAnswers says who answered about each proxied connection that
	// was asked about, for the connection record that follows.
	netAnswers map[netKey]string
	// mcpClient names the MCP client of a docket mcp-server session, whose
	// elicited answers the decisions record.
	mcpClient string
}

// grant is a session grant and who gave it.
type grant struct {
	seq     uint64
	callID  string
	command []string
	cwd     string
	by      *Decision
}

// decodeStop ends a scan at a record whose body cannot be decoded.
type decodeStop struct {
	seq uint64
	err error
}

func (e *decodeStop) Error() string { return fmt.Sprintf("record %d: %v", e.seq, e.err) }
func (e *decodeStop) Unwrap() error { return e.err }

func newAuditor(path string, opts Options, sink Sink) *auditor {
	return &auditor{opts: opts, sink: sink, head: Report{Journal: path, Rules: Rules{Files: []string{}}}, open: map[string]*tracker{}}
}

// wanted reports whether records of call id are audited at all.
func (a *auditor) wanted(id string) bool { return a.opts.CallID == "" || a.opts.CallID == id }

// tracker returns the open audit of call id, starting one if the call is
// new (or its earlier namesake is finished).
func (a *auditor) tracker(id string) *tracker {
	if t, ok := a.open[id]; ok && !t.complete {
		return t
	}
	t := newTracker(id)
	t.approvalPolicy = a.approvalNow
	a.open[id] = t
	a.order = append(a.order, t)
	return t
}

// feed audits one record.
func (a *auditor) feed(r events.Record) error {
	body, err := r.Decode()
	if err != nil {
		var nv *events.NewerVersionError
		if errors.As(err, &nv) {
			return err
		}
		return &decodeStop{seq: r.Seq, err: err}
	}
	id := r.CallID
	switch v := body.(type) {
	case *events.SessionStarted:
		a.sessionStarted(v)
		return nil
	case *events.ModelResponse:
		a.modelResponse(v)
		return a.emitReady()
	case *events.Transition:
		id = orDefault(v.CallID, id)
	case *events.ApprovalRequested:
		id = orDefault(v.CallID, id)
	case *events.Decision:
		id = orDefault(v.CallID, id)
	case *events.ExecStarted:
		id = orDefault(v.CallID, id)
		a.procs.started(r, v)
	case *events.ExecOutcome:
		id = orDefault(v.CallID, id)
		a.procs.outcome(r, v)
	case *events.ProcessEnded:
		a.procs.ended(r, v)
		return nil
	case *events.SessionResumed:
		a.procs.resumed(r)
		return nil
	case *events.ToolOutput:
		id = orDefault(v.CallID, id)
	case *events.HookVerdict:
		id = orDefault(v.CallID, id)
	case *events.Grant:
		a.grant(r, v)
		return nil
	case *events.InvalidCall:
		a.invalidCall(r, v)
		return a.emitReady()
	case *events.UserTurn:
		return a.userTurn(r, v)
	case *events.Compaction:
		return a.compaction(r, v)
	case *events.PolicyChanged:
		return a.policyChange(r, v)
	case *events.NetworkDecision:
		a.networkDecision(r, v)
		return nil
	case *events.NetworkConnection:
		a.networkConnection(r, v)
		return nil
	case *events.RuleAmended:
		am := Amendment{CallID: v.CallID, Seq: r.Seq, Pattern: v.Pattern, Line: v.Line, File: v.File, Written: v.Written}
		a.amended = append(a.amended, am)
		if a.wanted(v.CallID) {
			a.head.Amendments = append(a.head.Amendments, am)
		}
		return nil
	default:
		return nil
	}
	if id == "" || !a.wanted(id) {
		return nil
	}
	t := a.tracker(id)
	switch v := body.(type) {
	case *events.Transition:
		a.transition(t, r, v)
	case *events.ApprovalRequested:
		t.approvalRequested(r, v)
	case *events.Decision:
		t.decision(r, v, a.mcpClient)
	case *events.ExecStarted:
		a.execStarted(t, r, v)
	case *events.ExecOutcome:
		t.execOutcome(r, v)
	case *events.ToolOutput:
		t.toolOutput(v)
	case *events.HookVerdict:
		t.c.Hooks = append(t.c.Hooks, Hook{Seq: r.Seq, Stage: string(v.Stage), Name: v.Name, Command: v.Command,
			Decision: string(v.Decision), Reason: v.Reason, Error: v.Error, ExitCode: v.ExitCode,
			DurationMs: v.DurationNs / 1e6, Sandbox: string(v.Sandbox)})
	}
	return a.emitReady()
}

func (a *auditor) sessionStarted(v *events.SessionStarted) {
	if a.haveHeader {
		return
	}
	a.haveHeader = true
	a.head.SessionID, a.cwd, a.sources = v.SessionID, v.Cwd, v.Rules
	if p := v.Parent; p != nil {
		a.head.Parent = &Parent{SessionID: p.SessionID, CallID: p.CallID, Name: p.Name}
	}
	c := v.Config
	a.head.Policy = Policy{ApprovalPolicy: c.ApprovalPolicy, SandboxMode: c.SandboxMode, NetworkAccess: c.NetworkAccess, EgressProxy: v.Plan.Egress,
		NetworkInconsistent: v.Plan.Sandboxed() && v.Plan.Network && v.Plan.Egress,
		WritableRoots:       c.WritableRoots, RequireProtectedPaths: c.RequireProtectedPaths}
	for _, s := range v.Settings {
		switch s.Key {
		case BypassSetting:
			a.head.Policy.Bypassed = true
		case MCPClientSetting:
			a.mcpClient = s.Value
		case HooksUntrustedSetting:
			a.head.HooksUntrusted = strings.Split(s.Value, "\n")
		}
	}
	for _, s := range v.Rules {
		a.head.Rules.Files = append(a.head.Rules.Files, s.Path)
	}
	a.head.Rules.Digest = v.RulesDigest
}

// modelResponse starts an audit for every call the model made, so a call
// is known by its tool name and arguments even if it never got further.
func (a *auditor) modelResponse(v *events.ModelResponse) {
	a.lastCalls = a.lastCalls[:0]
	a.responses++
	for _, it := range v.Items {
		if it.Type != events.ItemFunctionCall && it.Type != events.ItemCustomToolCall {
			continue
		}
		a.lastCalls = append(a.lastCalls, it)
		if it.CallID == "" || !a.wanted(it.CallID) {
			continue
		}
		t := a.tracker(it.CallID)
		if len(t.c.Transitions) > 0 {
			continue
		}
		t.resp, t.pos = a.responses, len(a.lastCalls)-1
		t.c.Tool = it.Name
		t.c.Command, t.c.Cwd = a.commandOf(it)
	}
}

// commandOf reads a call's command and working directory from the model's
// arguments, as far as they are well-formed; the write-ahead record, when
// there is one, is the authority.
func (a *auditor) commandOf(it events.Item) ([]string, string) {
	if it.Type == events.ItemCustomToolCall || it.Name == "apply_patch" {
		return []string{it.Name}, a.cwd
	}
	var args struct {
		Command []string `json:"command"`
		Workdir string   `json:"workdir"`
	}
	if json.Unmarshal([]byte(it.Arguments), &args) != nil || len(args.Command) == 0 {
		return []string{it.Name}, a.cwd
	}
	cwd := a.cwd
	switch {
	case args.Workdir == "" || args.Workdir == ".":
	case filepath.IsAbs(args.Workdir):
		cwd = filepath.Clean(args.Workdir)
	case cwd != "":
		cwd = filepath.Join(cwd, args.Workdir)
	}
	return args.Command, cwd
}

func (a *auditor) grant(r events.Record, v *events.Grant) {
	g := grant{seq: r.Seq, callID: v.CallID}
	if t, ok := a.open[v.CallID]; ok {
		g.command, g.cwd = t.c.Command, t.c.Cwd
		if t.last != nil {
			if d, ok := t.approved[t.last.Phase]; ok {
				g.by = &d
			}
		}
	}
	a.grants = append(a.grants, g)
}

func (a *auditor) grantedBefore(seq uint64) bool {
	for _, g := range a.grants {
		if g.seq < seq {
			return true
		}
	}
	return false
}

// emitReady hands over every finished call that no earlier call holds back.
func (a *auditor) emitReady() error {
	for len(a.order) > 0 && a.order[0].complete {
		t := a.order[0]
		a.order[0] = nil
		a.order = a.order[1:]
		if err := a.emit(t); err != nil {
			return err
		}
	}
	return nil
}

func (a *auditor) emit(t *tracker) error {
	if t.event != nil {
		if err := a.begin(); err != nil {
			return err
		}
		if es, ok := a.sink.(EventSink); ok {
			return es.Event(t.event)
		}
		return nil
	}
	if a.open[t.c.CallID] == t {
		delete(a.open, t.c.CallID)
	}
	c := a.finalize(t)
	a.seen++
	a.head.Violations = append(a.head.Violations, t.violations...)
	if err := a.begin(); err != nil {
		return err
	}
	if a.opts.UnsandboxedOnly && !c.RanUnsandboxed {
		return nil
	}
	return a.sink.Call(&c)
}

func (a *auditor) begin() error {
	if a.begun {
		return nil
	}
	a.begun = true
	return a.sink.Begin(&a.head)
}

// end finishes the audit after the last readable record: open calls are
// emitted as they stand, and the damage, if any, is reported.
func (a *auditor) end(damage *Damage) error {
	for _, t := range a.order {
		if err := a.emit(t); err != nil {
			return err
		}
	}
	a.order = nil
	if err := a.begin(); err != nil {
		return err
	}
	a.head.Damaged = damage
	a.head.Processes = a.procs.list()
	return a.sink.End(&a.head)
}

// finalize turns a tracker into the call's report entry.
func (a *auditor) finalize(t *tracker) Call {
	c := t.c
	c.FinalState = string(t.state)
	if c.Refused != nil {
		c.FinalState = FinalRefused
	}
	c.Outcome = t.outcome()
	for i := len(c.Attempts) - 1; i >= 0; i-- {
		if c.Attempts[i].OutcomeSeq > 0 {
			c.ExitCode = c.Attempts[i].ExitCode
			break
		}
	}
	for _, at := range c.Attempts {
		if at.Sandbox != nil {
			sb := *at.Sandbox
			c.Sandbox = &sb
			break
		}
	}
	if t.unsb != nil {
		c.RanUnsandboxed = true
		c.WhyUnsandboxed = a.why(t)
	}
	for _, v := range t.violations {
		c.Violations = append(c.Violations, fmt.Sprintf("seq %d: %s", v.Seq, v.Message))
	}
	if c.Command == nil {
		c.Command = []string{}
	}
	if c.Transitions == nil {
		c.Transitions = []Transition{}
	}
	if c.Decisions == nil {
		c.Decisions = []Decision{}
	}
	return c
}

// outcome classifies how the call ended.
func (t *tracker) outcome() string {
	switch {
	case t.c.Refused != nil:
		return OutcomeInvalid
	case t.state != states.Done:
		return OutcomePending
	case t.lastEvent == string(states.Fail):
		return OutcomeInvalid
	case t.lastEvent == string(states.Interrupt):
		return OutcomeInterrupted
	case t.everDenied:
		return OutcomeDenied
	case t.output != nil:
		if t.output.Success {
			return OutcomeCompleted
		}
		return OutcomeFailed
	}
	for i := len(t.c.Attempts) - 1; i >= 0; i-- {
		at := t.c.Attempts[i]
		if at.OutcomeSeq == 0 {
			continue
		}
		if at.ExitCode != nil && *at.ExitCode == 0 && !at.TimedOut && at.Signal == "" {
			return OutcomeCompleted
		}
		return OutcomeFailed
	}
	return OutcomeFailed
}

// fmtTime renders a journal time (Unix nanoseconds) as RFC 3339 in UTC.
func fmtTime(ns int64) string {
	if ns == 0 {
		return ""
	}
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// invalidCall audits a call the engine refused before it ran (its id was
// unusable). The call got a tracker from its model response when it had
// an id; that tracker, still untouched, becomes the refusal. A refused
// call without an id, or the second of two namesakes, gets its own.
func (a *auditor) invalidCall(r events.Record, v *events.InvalidCall) {
	if !a.wanted(v.CallID) {
		return
	}
	t, ok := a.open[v.CallID]
	if !ok || t.complete || len(t.c.Transitions) > 0 || t.c.Refused != nil {
		t = newTracker(v.CallID)
		t.resp, t.pos = a.responses, v.Position
		// In the order of the response's calls, before any later call.
		at := len(a.order)
		for i, o := range a.order {
			if o.resp == t.resp && o.pos > t.pos {
				at = i
				break
			}
		}
		a.order = append(a.order[:at], append([]*tracker{t}, a.order[at:]...)...)
		if !ok {
			a.open[v.CallID] = t
		}
	}
	t.c.Tool = v.Name
	t.c.Command = nil
	if v.Position >= 0 && v.Position < len(a.lastCalls) {
		t.c.Command, t.c.Cwd = a.commandOf(a.lastCalls[v.Position])
	}
	t.c.Refused = &Refusal{Seq: r.Seq, Position: v.Position, Reason: v.Reason}
	if t.c.Cwd == "" {
		t.c.Cwd = a.cwd
	}
	t.complete = true
}
