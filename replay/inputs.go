package replay

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/hooks"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
)

// recorded holds a journal's inputs, for the stand-ins below.
type recorded struct {
	responses []seqResponse
	// compactions are the journal's compaction records, in seq order.
	compactions []seqCompaction
	decisions   map[string][]seqDecision // by request id, in seq order
	outcomes    map[string]events.ExecOutcome
	// outcomeSeqs are the outcomes' seqs, for spawn_agent calls whose
	// child parked: the outcome came in a later segment.
	outcomeSeqs map[string]uint64
	started     map[string]bool
	risks       map[string]events.RiskAssessment
	// amendments are the rules the user saved ("p"), in seq order.
	amendments []events.RuleAmended
	// parked are the seqs of turn_ended records of parked turns.
	parked []uint64
	// ended reports whether the journal's last turn ended (rather than
	// being cut off by a crash no resume followed).
	ended bool
	last  uint64 // the journal's last seq
	// stops are the calls the operator or a deadline interrupted, by call
	// id (stop.go).
	stops map[string]operatorStop
	// hooks are the recorded hook verdicts, in seq order.
	hooks []seqVerdict
	// resolved indexes each response's path resolutions by turn and
	// request (the first response of each), so a request's lookup does
	// not scan every response before it.
	resolved map[requestKey][]events.ResolvedPath
	// network holds each call's network records (network.go).
	network *networkFeed
}

type requestKey struct {
	turnID  string
	request int
}

// parkedWithin reports whether a turn parked between from and to (0: end).
func (in *recorded) parkedWithin(from, to uint64) bool {
	for _, s := range in.parked {
		if s > from && (to == 0 || s < to) {
			return true
		}
	}
	return false
}

// outcomeKey names one attempt of a call ("c1#2"). Replay looks one up per
// attempt run and per exec_started record: concatenation, not fmt.
func outcomeKey(callID string, attempt int) string { return callID + "#" + strconv.Itoa(attempt) }

func collect(recs []decoded) *recorded {
	in := &recorded{decisions: map[string][]seqDecision{}, outcomes: map[string]events.ExecOutcome{}, outcomeSeqs: map[string]uint64{},
		started: map[string]bool{}, risks: map[string]events.RiskAssessment{}, ended: true, stops: map[string]operatorStop{},
		resolved: map[requestKey][]events.ResolvedPath{}, network: newNetworkFeed()}
	for _, r := range recs {
		if r.rec.Kind == events.KindExecStarted {
			// Only which attempt started matters (decision records are
			// otherwise left encoded).
			in.started[outcomeKey(r.rec.CallID, attemptOf(r.rec))] = true
			continue
		}
		switch v := r.body.(type) {
		case *events.ModelResponse:
			in.responses = append(in.responses, seqResponse{seq: r.rec.Seq, r: *v})
			if k := (requestKey{v.TurnID, v.Request}); !hasKey(in.resolved, k) {
				in.resolved[k] = v.Resolved
			}
		case *events.Decision:
			in.decisions[v.RequestID] = append(in.decisions[v.RequestID], seqDecision{seq: r.rec.Seq, d: *v})
		case *events.ExecOutcome:
			in.outcomes[outcomeKey(v.CallID, v.Attempt)] = *v
			in.outcomeSeqs[outcomeKey(v.CallID, v.Attempt)] = r.rec.Seq
		case *events.RiskAssessment:
			in.risks[v.CallID] = *v
		case *events.Compaction:
			in.compactions = append(in.compactions, seqCompaction{seq: r.rec.Seq, c: *v})
		case *events.HookVerdict:
			in.hooks = append(in.hooks, seqVerdict{seq: r.rec.Seq, v: *v})
		case *events.NetworkDecision:
			in.network.add(r.rec, v.CallID, *v)
		case *events.NetworkConnection:
			in.network.add(r.rec, v.CallID, *v)
		}
		in.last = r.rec.Seq
		switch r.rec.Kind {
		case events.KindTransition:
			if id, st, ok := operatorStopOf(r.rec); ok {
				in.stops[id] = st
			}
		case events.KindRuleAmended:
			if b, err := r.rec.Decode(); err == nil {
				in.amendments = append(in.amendments, *b.(*events.RuleAmended))
			}
		case events.KindUserTurn:
			in.ended = false
		case events.KindTurnEnded:
			in.ended = true
			if b, err := r.rec.Decode(); err == nil && b.(*events.TurnEnded).Status == events.TurnParked {
				in.parked = append(in.parked, r.rec.Seq)
			}
		}
	}
	return in
}

type seqResponse struct {
	seq uint64
	r   events.ModelResponse
}

// recordedModel answers requests with the journal's responses, in order.
// Within a segment it only answers with responses that segment recorded:
// a request whose answer never reached the journal is where the process
// died, and the replay stops there too.
type recordedModel struct {
	mu   sync.Mutex
	in   *recorded
	next int
	to   uint64 // segment end (exclusive); 0 means none
	log  *comparingLog
}

func (m *recordedModel) Respond(ctx context.Context, req model.Request, _ func(model.Delta)) (model.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next >= len(m.in.responses) || (m.to > 0 && m.in.responses[m.next].seq >= m.to) {
		if m.log != nil {
			// The process stopped waiting for this response (its request
			// is already matched): so does the replay, once the segment's
			// other records are in.
			m.mu.Unlock()
			err := m.log.awaitEnd(ctx)
			m.mu.Lock()
			return model.Response{}, err
		}
		return model.Response{}, errors.New("replay: the journal has no further model response")
	}
	r := m.in.responses[m.next].r
	m.next++
	if r.Error != "" {
		return model.Response{}, errors.New(r.Error)
	}
	return model.Response{ID: r.ResponseID, Items: r.Items, Usage: r.Usage, Attempts: r.Attempts}, nil
}

type seqCompaction struct {
	seq uint64
	c   events.Compaction
}

// recordedCompactor answers compaction requests with the journal's
// summaries, in order, as recordedModel answers turns: a compaction the
// segment never recorded is where its process died.
type recordedCompactor struct {
	mu   sync.Mutex
	in   *recorded
	next int
	to   uint64 // segment end (exclusive); 0 means none
	log  *comparingLog
}

func (m *recordedCompactor) Respond(ctx context.Context, req model.Request, _ func(model.Delta)) (model.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next >= len(m.in.compactions) || (m.to > 0 && m.in.compactions[m.next].seq >= m.to) {
		if m.log != nil {
			m.mu.Unlock()
			err := m.log.awaitEnd(ctx)
			m.mu.Lock()
			return model.Response{}, err
		}
		return model.Response{}, errors.New("replay: the journal has no further compaction")
	}
	c := m.in.compactions[m.next].c
	m.next++
	if c.Error != "" {
		return model.Response{}, errors.New(c.Error)
	}
	return model.Response{Items: []events.Item{{Type: events.ItemMessage, Role: "assistant", Text: c.Summary}}, Usage: c.Usage, Attempts: 1}, nil
}

type seqDecision struct {
	seq uint64
	d   events.Decision
}

// recordedApprover answers with the decisions the journal recorded within
// the current segment; a request the segment never answered parks, as it
// did.
type recordedApprover struct {
	in       *recorded
	from, to uint64 // segment bounds; to == 0 means the end
	// log, in verify replay, is where an unanswered request waits for the
	// segment's end; live replay has none and parks.
	log *comparingLog
}

// inSegment reports whether seq lies in the approver's segment.
func (a recordedApprover) inSegment(seq uint64) bool {
	return seq > a.from && (a.to == 0 || seq < a.to)
}

func (a recordedApprover) Decide(ctx context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
	var d events.Decision
	found := false
	for _, sd := range a.in.decisions[req.RequestID] {
		if sd.seq > a.from && (a.to == 0 || sd.seq < a.to) {
			d, found = sd.d, true
			break
		}
	}
	if st, ok := a.in.stops[req.CallID]; !found && ok && a.log != nil && a.inSegment(st.seq) {
		return engine.Answer{}, a.log.stopAsRecorded(ctx, st)
	}
	if !found {
		if a.log == nil || a.in.parkedWithin(a.from, a.to) {
			// The session parked here (no answer was available).
			return engine.Answer{}, engine.ErrNoDecision
		}
		// The process stopped while the question was open.
		return engine.Answer{}, a.log.awaitEnd(ctx)
	}
	// A recorded timeout is given back as the answer it became: waiting
	// for a deadline the replay does not have would block for ever.
	return engine.Answer{Decision: d.Decision, Source: d.Source, Amendment: d.Amendment, Feedback: d.Feedback, At: time.Unix(0, d.At)}, nil
}

// recordedRunner returns the journal's outcomes and spawns nothing.
type recordedRunner struct {
	in  *recorded
	log *comparingLog
	// from and to are the segment's window (see recordedApprover).
	from, to uint64
}

func (r recordedRunner) Check(ctx context.Context, req engine.RunRequest) error {
	k := outcomeKey(req.CallID, req.Attempt)
	if o, ok := r.in.outcomes[k]; ok && o.SandboxError != "" && !r.in.started[k] {
		return errors.New(o.SandboxError)
	}
	return nil
}

func (r recordedRunner) Run(ctx context.Context, req engine.RunRequest) (events.ExecOutcome, error) {
	o, ok := r.in.outcomes[outcomeKey(req.CallID, req.Attempt)]
	if sp := req.Agent; sp != nil {
		seq := r.in.outcomeSeqs[outcomeKey(req.CallID, req.Attempt)]
		inSegment := ok && seq > r.from && (r.to == 0 || seq < r.to)
		if !inSegment && r.in.parkedWithin(r.from, r.to) {
			// The subagent parked in this segment; its outcome, if any,
			// came after a resume.
			return events.ExecOutcome{}, &engine.AgentParkedError{Name: sp.Name, ChildID: sp.ChildID}
		}
		ok = ok && inSegment
	}
	if st, stopped := r.in.stops[req.CallID]; !ok && stopped {
		return events.ExecOutcome{}, r.log.stopAsRecorded(ctx, st)
	}
	// What the command's connections brought (answers about hosts, each
	// connection's verdict) is fed back as recorded, before its outcome.
	before := r.to
	if ok {
		before = r.in.outcomeSeqs[outcomeKey(req.CallID, req.Attempt)]
	}
	if err := r.in.network.feed(r.log, req.CallID, r.from, before); err != nil {
		return events.ExecOutcome{}, err
	}
	if !ok {
		// The process was running when the session crashed: nothing came
		// back, and this call stops here as the original did, once the
		// other calls have caught up.
		return events.ExecOutcome{}, r.log.awaitEnd(ctx)
	}
	return o, nil
}

// recordedRisk returns the journal's risk assessments.
type recordedRisk struct{ in *recorded }

func (r recordedRisk) Assess(ctx context.Context, callID string, command []string, cwd, output string) events.RiskAssessment {
	if ra, ok := r.in.risks[callID]; ok {
		return ra
	}
	return events.RiskAssessment{CallID: callID, Error: "no recorded assessment"}
}

type seqVerdict struct {
	seq uint64
	v   events.HookVerdict
}

// recordedHooks gives back the hook verdicts the journal recorded for a
// call within the current segment, and runs no hook: a verify replay holds
// even where the hook scripts are gone.
type recordedHooks struct {
	in       *recorded
	from, to uint64 // segment bounds; to == 0 means the end
}

func (h recordedHooks) Run(_ context.Context, c hooks.Call) []events.HookVerdict {
	var out []events.HookVerdict
	for _, sv := range h.in.hooks {
		if sv.seq > h.from && (h.to == 0 || sv.seq < h.to) && sv.v.CallID == c.CallID && sv.v.Stage == c.Stage {
			out = append(out, sv.v)
		}
	}
	return out
}

// recordedPaths returns the path resolutions each model response recorded,
// so a replay judges apply_patch paths as the session did without the disk.
type recordedPaths struct{ in *recorded }

// Resolve returns what the response to (turnID, request) recorded; nothing
// for a journal written before resolutions were recorded, whose calls then
// resolve through RealPath.
func (p recordedPaths) Resolve(turnID string, request int, _ []events.ResolvedPath) []events.ResolvedPath {
	return p.in.resolved[requestKey{turnID, request}]
}

// RealPath resolves on disk, as Docket did before it recorded resolutions.
func (recordedPaths) RealPath(path string) string { return workspace.RealPath(path) }

// fixedClock returns one instant: record times are not compared.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// attemptOf reads an exec_started record's attempt, and only that: the
// record itself is compared as bytes, so the rest of it (argv, sandbox
// plan) need not be decoded here.
func attemptOf(r events.Record) int {
	var v struct {
		Attempt int `msgpack:"attempt"`
	}
	if err := events.DecodeBody(r.Body, &v); err != nil {
		return 0
	}
	return v.Attempt
}

func hasKey[K comparable, V any](m map[K]V, k K) bool {
	_, ok := m[k]
	return ok
}
