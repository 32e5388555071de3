package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/egress"
	"github.com/docket-engine/docket/states/permissions"
	"github.com/docket-engine/docket/states/policy"
)

// Egress configures the session's egress proxy (Config.Egress): set when
// the permission profile's network is on and goes through the proxy. The
// session has one proxy for its lifetime, in docket's own process (no
// process of its own); every sandboxed call whose plan says Egress gets a
// bridge to it (RunRequest.Bridge), served while the call's command runs
// (an exec_command process: while it lives), so nothing outlives docket.
type Egress struct {
	// Network is the profile's network policy: its domain rules decide,
	// and a host they do not cover is asked about under the approval
	// policy (never: denied).
	Network permissions.Network
	// Profile names the permission profile, for the records.
	Profile string
	// Persist prepares an allow rule for host in the profile's domains
	// (the "always" answer): its key, and the write that adds it, run once
	// the answer naming the key is durable (egress.JournalingAsker.Persist).
	// Nil or an error keeps the answer for the session only, and the
	// record says so.
	Persist func(host string) (key string, write func() error, err error)
	// Resolver, when set, replaces the proxy's resolver (tests).
	Resolver egress.Resolver
}

// NetworkQuestion is what a network approval request asks about: a host
// the profile's rules do not cover, asked for by a sandboxed command.
type NetworkQuestion struct {
	Host     string
	Port     int
	Protocol string
	// Method is the HTTP method of a plain request, else "".
	Method string
	// Profile is the permission profile that does not cover the host.
	Profile string
}

// sessionEgress is a session's proxy and what it knows of the calls it
// serves. Its rules are the permission profile's in force: a /permissions
// switch (set) replaces the proxy for the calls that follow; without a
// profile whose network goes through the proxy it has none, and no call
// gets a bridge.
type sessionEgress struct {
	s *Session

	mu      sync.Mutex
	cfg     *Egress
	proxy   *egress.Proxy
	decider *egress.ProfileDecider
	calls   map[string]egressCall
}

// egressCall is what a question about a call's connection names.
type egressCall struct {
	turnID  string
	command []string
	cwd     string
}

// newSessionEgress builds the session's proxy for cfg (none when nil).
func newSessionEgress(s *Session, cfg *Egress) *sessionEgress {
	e := &sessionEgress{s: s, calls: map[string]egressCall{}}
	e.set(cfg)
	return e
}

// set puts cfg's rules in force for the calls that follow: answers are
// journaled durably before the proxy acts on them
// (egress.JournalingAsker), each connection rides on the next commit
// (egress.RecordTo). Nil leaves the session without a proxy. A call
// already served (a long-lived exec_command process) keeps the proxy it
// started with.
func (e *sessionEgress) set(cfg *Egress) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cfg, e.proxy, e.decider = cfg, nil, nil
	if cfg == nil {
		return
	}
	j := recorderJournal{s: e.s}
	asker := &egress.JournalingAsker{Person: networkPerson{e: e, profile: cfg.Profile}, Journal: j, Now: e.s.rec.now, Profile: cfg.Profile, Persist: cfg.Persist}
	opts := egress.ProfileOptions(cfg.Network, asker)
	opts.Record, opts.Resolver = egress.RecordTo(j, e.s.rec.now), cfg.Resolver
	e.decider, _ = opts.Decider.(*egress.ProfileDecider)
	e.proxy = egress.New(opts)
}

// current is the proxy in force and its configuration.
func (e *sessionEgress) current() (*egress.Proxy, *Egress) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.proxy, e.cfg
}

// restore keeps a journaled answer that holds for the rest of the
// session (for the session, always) when the session is resumed.
func (e *sessionEgress) restore(d events.NetworkDecision) {
	e.mu.Lock()
	dec := e.decider
	e.mu.Unlock()
	if dec == nil || d.Profile != e.profile() {
		return
	}
	if d.Answer == events.NetworkAllowSession || d.Answer == events.NetworkAllowAlways {
		dec.Grant(d.Host)
	}
}

// bridgeFor is the bridge of one call's run: nil unless the call's plan
// sends its network through the proxy.
func (s *Session) bridgeFor(turnID string, start events.ExecStarted) sandbox.Bridge {
	if !start.Sandbox.Egress {
		return nil
	}
	proxy, _ := s.egress.current()
	if proxy == nil {
		// No rules for the plan's proxy (a resumed switch to a profile
		// this docket was not given): the sandbox refuses an egress plan
		// without a bridge, naming the layer, rather than run unproxied.
		return nil
	}
	return callBridge{e: s.egress, proxy: proxy, id: start.CallID, call: egressCall{turnID: turnID, command: start.Argv, cwd: start.Cwd}}
}

// callBridge serves the proxy on one call's listener for as long as the
// call runs: the proxy is goroutines of the session's process, started
// by a call's bridge and ended with it, so nothing outlives docket.
type callBridge struct {
	e     *sessionEgress
	proxy *egress.Proxy
	id    string
	call  egressCall
}

// Serve attributes the listener's connections to the call and serves them
// until the call's run ends. The proxy's Serve waits for the call's
// connections, so no question about the call comes after it: the call's
// entry goes with it, not kept for the session's lifetime.
func (b callBridge) Serve(ctx context.Context, ln net.Listener) error {
	b.e.mu.Lock()
	b.e.calls[b.id] = b.call
	b.e.mu.Unlock()
	defer func() {
		b.e.mu.Lock()
		delete(b.e.calls, b.id)
		b.e.mu.Unlock()
	}()
	return egress.CallBridge{Proxy: b.proxy, CallID: b.id}.Serve(ctx, ln)
}

func (e *sessionEgress) call(id string) egressCall {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[id]
}

// recorderJournal journals network records through the session's
// recorder, which serialises them with the engine's own, and then shows
// each to the observer (NoticeNetwork): the journal stays the authority,
// so a record that could not be written is not shown.
type recorderJournal struct{ s *Session }

func (j recorderJournal) AppendDurable(_ time.Time, callID string, body any) (events.Record, error) {
	r, err := j.s.rec.appendDurable(callID, body)
	if err == nil {
		j.s.noticeNetwork(r, body)
	}
	return r, err
}

func (j recorderJournal) Append(_ time.Time, callID string, body any) (events.Record, error) {
	r, err := j.s.rec.append(callID, body)
	if err == nil {
		j.s.noticeNetwork(r, body)
	}
	return r, err
}

// noticeNetwork tells the observer about a journaled network record.
func (s *Session) noticeNetwork(r events.Record, body any) {
	n := Notice{Type: NoticeNetwork, CallID: r.CallID, Seq: r.Seq}
	switch v := body.(type) {
	case events.NetworkDecision:
		n.NetworkDecision = &v
	case *events.NetworkDecision:
		n.NetworkDecision = v
	case events.NetworkConnection:
		n.NetworkConnection = &v
	case *events.NetworkConnection:
		n.NetworkConnection = v
	default:
		return
	}
	s.notify(n)
}

// networkPerson puts a question about a host to the session's approver,
// the one call approvals go to (the terminal, the chat UI, --decisions),
// as a request of kind network. Under the approval policy never nobody
// is asked; an approver with no answer to give (no terminal, the saved
// answers used up) or no answer in approval_timeout_sec denies.
// It names the profile of the proxy that asks, the one its answer is
// journaled under: a call served before a /permissions switch keeps that
// proxy, and its question is not about the profile switched to.
type networkPerson struct {
	e       *sessionEgress
	profile string
}

func (p networkPerson) Ask(ctx context.Context, req egress.Request) (egress.Answer, error) {
	a, _, err := p.AskSourced(ctx, req)
	return a, err
}

// AskSourced maps the approver's decision: approved is allow once,
// approved_for_session allow for the session, approved_execpolicy_amendment
// ("p", save the rule) always, anything else deny.
func (p networkPerson) AskSourced(ctx context.Context, req egress.Request) (egress.Answer, events.DecisionSource, error) {
	s := p.e.s
	if s.decider.Approval() == policy.Never {
		return egress.DenyHost, "", egress.ErrNoAnswer
	}
	c := p.e.call(req.CallID)
	q := &NetworkQuestion{Host: req.Host, Port: req.Port, Protocol: string(req.Protocol), Method: req.Method, Profile: p.profile}
	areq := ApprovalRequest{ApprovalRequested: events.ApprovalRequested{
		CallID: req.CallID, TurnID: c.turnID, RequestID: fmt.Sprintf("%s/network/%d", req.CallID, req.Conn), Phase: events.PhaseInitial,
		Kind: events.ApprovalNetwork, Command: c.command, Cwd: c.cwd,
		Reason: fmt.Sprintf("the command asks to reach %s:%d (%s), which no rule of permission profile %s covers", req.Host, req.Port, req.Protocol, q.Profile),
	}, Network: q}
	actx, cancel := ctx, context.CancelFunc(func() {})
	if s.cfg.ApprovalTimeout > 0 {
		actx, cancel = context.WithTimeout(ctx, s.cfg.ApprovalTimeout)
	}
	defer cancel()
	ans, err := s.approver.Decide(actx, areq)
	switch {
	case errors.Is(err, ErrNoDecision):
		return egress.DenyHost, "", egress.ErrNoAnswer
	case err != nil && ctx.Err() == nil && actx.Err() == context.DeadlineExceeded:
		return egress.DenyHost, "", egress.ErrNoAnswer
	case err != nil:
		return egress.DenyHost, "", err
	}
	switch ans.Decision {
	case events.Approved:
		return egress.AllowOnce, ans.Source, nil
	case events.ApprovedForSession:
		return egress.AllowSession, ans.Source, nil
	case events.ApprovedExecpolicyAmendment:
		return egress.AllowAlways, ans.Source, nil
	}
	return egress.DenyHost, ans.Source, nil
}

// profile names the permission profile whose rules are in force.
func (e *sessionEgress) profile() string {
	_, cfg := e.current()
	if cfg != nil {
		return cfg.Profile
	}
	return ""
}
