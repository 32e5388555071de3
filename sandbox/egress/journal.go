package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/docket-engine/docket/events"
)

// Journal is where network records go; *journal.Journal is one.
type Journal interface {
	// AppendDurable appends and commits (fsync) before returning.
	AppendDurable(at time.Time, callID string, body any) (events.Record, error)
	// Append buffers a record for the next durable commit.
	Append(at time.Time, callID string, body any) (events.Record, error)
}

// JournalingAsker asks Person (nil: the approval policy is never, and the
// answer is deny) and journals the answer durably before returning it, so
// no byte is forwarded on an answer a crash could lose. A journal that
// cannot be written turns the answer into an error: the proxy refuses.
type JournalingAsker struct {
	Person  Asker
	Journal Journal
	Now     func() time.Time
	// Profile names the permission profile, for the record.
	Profile string
	// Persist prepares an allow rule for host in the profile's domains (an
	// allow_always answer): it returns the rule's key and the write that
	// adds it, which runs only once the answer naming the key is durable,
	// so the config never holds a rule the journal does not name. Nil, or
	// an error (nowhere the profile may be widened, a file that cannot
	// take the rule), turns the answer into allow_session: the record says
	// which one held.
	Persist func(host string) (key string, write func() error, err error)
}

// ErrNoAnswer is what a Person returns when nobody can answer now (no
// terminal, the saved answers used up): the host is denied, and the
// denial journaled as the policy's (source no_answer), not a person's.
var ErrNoAnswer = errors.New("nobody can answer now")

// SourcedAsker is an Asker that says who answered (a person at the
// terminal, a saved --decisions answer): the record keeps it.
type SourcedAsker interface {
	AskSourced(ctx context.Context, req Request) (Answer, events.DecisionSource, error)
}

func askSourced(ctx context.Context, p Asker, req Request) (Answer, events.DecisionSource, error) {
	if s, ok := p.(SourcedAsker); ok {
		return s.AskSourced(ctx, req)
	}
	a, err := p.Ask(ctx, req)
	return a, events.SourceUser, err
}

// Ask asks, journals, answers.
func (a *JournalingAsker) Ask(ctx context.Context, req Request) (Answer, error) {
	answer, _, err := a.AskSourced(ctx, req)
	return answer, err
}

// AskSourced is Ask, saying who answered: SourceNoAnswer when nobody could
// (approval policy never, no terminal, the saved answers used up).
func (a *JournalingAsker) AskSourced(ctx context.Context, req Request) (Answer, events.DecisionSource, error) {
	answer, source := DenyHost, events.SourceNoAnswer
	if a.Person != nil {
		got, src, err := askSourced(ctx, a.Person, req)
		switch {
		case errors.Is(err, ErrNoAnswer):
		case err != nil:
			return DenyHost, "", err
		default:
			answer, source = got, src
		}
	}
	var written string
	var write func() error
	if answer == AllowAlways {
		answer = AllowSession
		if a.Persist != nil {
			if key, w, err := a.Persist(req.Host); err == nil && w != nil {
				answer, written, write = AllowAlways, key, w
			}
		}
	}
	if source == events.SourceNoAnswer {
		if lim, _ := ctx.Value(refusalsKey{}).(*refusals); lim != nil && !lim.admitNoAnswer() {
			// The policy's own denial, past the call's first: a command
			// refused in a loop would otherwise add a durable record (and
			// a sync) per request. Nothing is let through; the refusal's
			// count (refusals.go) still says it happened.
			return DenyHost, source, nil
		}
	}
	rec := events.NetworkDecision{CallID: req.CallID, Conn: req.Conn, Host: req.Host, Port: req.Port, Protocol: string(req.Protocol),
		Method: req.Method, Answer: events.NetworkAnswer(answer), Source: source, Profile: a.Profile, RuleWritten: written}
	if _, err := a.Journal.AppendDurable(a.Now(), req.CallID, rec); err != nil {
		return DenyHost, "", fmt.Errorf("journaling the answer about %s: %w", req.Host, err)
	}
	if write != nil {
		// Journal first: a write that fails now (a full disk, a crash in
		// between) leaves the file narrower than the record, never wider.
		// The answer holds for the session either way.
		_ = write()
	}
	return answer, source, nil
}

// CallBridge serves the proxy on one call's listener, attributing every
// connection to the call (WithCallID); it is a sandbox.Bridge.
type CallBridge struct {
	Proxy  *Proxy
	CallID string
}

// Serve serves the call's listener until ctx ends.
func (b CallBridge) Serve(ctx context.Context, ln net.Listener) error {
	return b.Proxy.Serve(WithCallID(ctx, b.CallID), ln)
}

// RecordTo returns an Options.Record that appends each connection to j,
// riding on the journal's next durable commit (the call's outcome): the
// decision that let it through was made durable first.
func RecordTo(j Journal, now func() time.Time) func(Event) {
	var mu sync.Mutex
	return func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = j.Append(now(), ev.CallID, ConnectionRecord(ev))
	}
}

// ConnectionRecord is an event as the journal keeps it.
func ConnectionRecord(ev Event) events.NetworkConnection {
	return events.NetworkConnection{CallID: ev.CallID, Conn: ev.Conn, Protocol: string(ev.Protocol), Host: ev.Host, Port: ev.Port,
		Method: ev.Method, Allowed: ev.Allowed, Rule: ev.Rule, Addr: ev.Addr, SNI: ev.SNI, Refusals: ev.Refusals}
}

// RecordedAsker answers from a journal's network decisions and asks
// nobody: replay uses it. A question the journal has no answer for is an
// error naming the call and host (the replay diverged), never a prompt.
type RecordedAsker struct {
	mu      sync.Mutex
	answers []events.NetworkDecision
}

// NewRecordedAsker answers from decisions, in journal order.
func NewRecordedAsker(decisions []events.NetworkDecision) *RecordedAsker {
	return &RecordedAsker{answers: append([]events.NetworkDecision(nil), decisions...)}
}

// Ask returns the first unused recorded answer for the call and host.
func (r *RecordedAsker) Ask(_ context.Context, req Request) (Answer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, d := range r.answers {
		if d.CallID == req.CallID && d.Host == req.Host && d.Port == req.Port {
			r.answers = append(r.answers[:i], r.answers[i+1:]...)
			return Answer(d.Answer), nil
		}
	}
	return DenyHost, fmt.Errorf("replay: call %s asked about %s:%d, and the journal has no answer for it", req.CallID, req.Host, req.Port)
}
