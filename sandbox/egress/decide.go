package egress

import (
	"context"
	"fmt"
	"sync"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/permissions"
)

// Protocol is how a client asked the proxy for a host.
type Protocol string

// The protocols the proxy speaks.
const (
	ProtoConnect Protocol = "http-connect"
	ProtoHTTP    Protocol = "http"
	ProtoSOCKS5  Protocol = "socks5"
)

// Request is one destination a client asked for.
type Request struct {
	// CallID is the call whose command asked (see WithCallID).
	CallID string
	// Conn numbers the client connection within the proxy, from 1.
	Conn     uint64
	Protocol Protocol
	// Host is the name as the client sent it (lower-cased, no trailing dot).
	Host string
	Port int
	// Method is the HTTP method of a plain HTTP request, else "".
	Method string
}

// Decision is a Decider's answer.
type Decision struct {
	Allow bool
	// AllowPrivate lets the proxy connect to loopback, link-local and
	// private addresses the name resolves to.
	AllowPrivate bool
	// Rule names what decided: a profile key, "user: allow for session",
	// "approval policy never", ...
	Rule string
}

// Decider decides whether a request may go out. It may block (to ask a
// person); engine's implementation journals the answer durably before
// returning it.
type Decider interface {
	Decide(ctx context.Context, req Request) (Decision, error)
}

// Answer is a person's answer about a host no rule covers.
type Answer string

// The answers, as Codex offers them.
const (
	AllowOnce    Answer = "allow_once"
	AllowSession Answer = "allow_session"
	// AllowAlways is AllowSession plus an allow rule written to the
	// profile's domains by the Asker.
	AllowAlways Answer = "allow_always"
	DenyHost    Answer = "deny"
)

// Asker asks a person about a host the profile does not cover. A nil
// Asker (approval policy never, or nobody to ask) denies.
type Asker interface {
	Ask(ctx context.Context, req Request) (Answer, error)
}

// ProfileDecider decides by a profile's network rules and asks about the
// rest, remembering session grants. It is safe for concurrent use.
type ProfileDecider struct {
	Network *permissions.Network
	Asker   Asker

	mu sync.Mutex
	// session maps a normalised host to its grant for the session.
	session map[string]bool
}

// Grant allows host for the rest of the session without asking: a
// resumed session's answers "for the session" and "always" still hold.
func (d *ProfileDecider) Grant(host string) {
	h, err := permissions.NormaliseHost(host)
	if err != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.session == nil {
		d.session = map[string]bool{}
	}
	d.session[h] = true
}

// Decide returns the profile's verdict, or the person's answer.
func (d *ProfileDecider) Decide(ctx context.Context, req Request) (Decision, error) {
	v := d.Network.Decide(req.Host)
	switch v.Action {
	case permissions.Allow:
		return Decision{Allow: true, AllowPrivate: v.Exact, Rule: v.Rule.Key}, nil
	case permissions.Deny:
		if v.Rule != nil {
			return Decision{Rule: v.Rule.Key}, nil
		}
		return Decision{Rule: v.Reason}, nil
	}
	host, _ := permissions.NormaliseHost(req.Host)
	d.mu.Lock()
	granted := d.session[host]
	d.mu.Unlock()
	if granted {
		return Decision{Allow: true, Rule: "user: allowed for the session"}, nil
	}
	if d.Asker == nil {
		return Decision{Rule: "no rule covers the host and nobody may be asked (approval policy never)"}, nil
	}
	a, source, err := askSourced(ctx, d.Asker, req)
	if err != nil {
		return Decision{}, fmt.Errorf("asking about %s: %w", req.Host, err)
	}
	switch a {
	case AllowOnce:
		return Decision{Allow: true, Rule: "user: allowed once"}, nil
	case AllowSession, AllowAlways:
		d.mu.Lock()
		if d.session == nil {
			d.session = map[string]bool{}
		}
		d.session[host] = true
		d.mu.Unlock()
		return Decision{Allow: true, Rule: "user: " + string(a)}, nil
	}
	if source == events.SourceNoAnswer {
		// Nobody was asked (approval never) or nobody could answer: the
		// denial is the policy's, not a person's.
		return Decision{Rule: "no rule covers the host and nobody answered (approval policy never, or no answer)"}, nil
	}
	return Decision{Rule: "user: denied"}, nil
}

// ProfileOptions are the proxy options a profile's network policy sets:
// its rules decide (asking asker about the rest; nil denies them), its
// mode limits the methods, enable_socks5 offers SOCKS5. A session's proxy
// and `docket sandbox --permissions` both start from them.
func ProfileOptions(n permissions.Network, asker Asker) Options {
	return Options{
		Decider:  &ProfileDecider{Network: &n, Asker: asker},
		Limited:  n.Mode == permissions.ModeLimited,
		NoSOCKS5: !n.Socks5,
	}
}
