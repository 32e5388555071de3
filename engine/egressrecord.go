package engine

import (
	"fmt"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/permissions"
)

// networkRecord is what the journal keeps of eg's rules (session_started,
// a /permissions switch): everything the proxy decides by, so a resumed
// session and verify replay need no configuration to rebuild it.
func networkRecord(eg *Egress) *events.NetworkRules {
	if eg == nil {
		return nil
	}
	n := eg.Network
	r := &events.NetworkRules{Profile: eg.Profile, Enabled: n.Enabled, Mode: string(n.Mode), AllowLocalBinding: n.AllowLocalBinding, Socks5: n.Socks5, ManagedOnly: n.ManagedOnly}
	for _, d := range n.Domains {
		r.Domains = append(r.Domains, events.DomainRule{Host: d.Host, Wildcard: d.Wildcard, Action: string(d.Action), Key: d.Key})
	}
	for _, u := range n.UnixSockets {
		r.UnixSockets = append(r.UnixSockets, events.UnixSocketRule{Path: u.Path, Allow: u.Allow})
	}
	return r
}

// egressOfRecord rebuilds the proxy's configuration from recorded rules
// (resume, replay). The recorded rules decide alone: the configuration in
// force now (cur) neither widens nor narrows them, its domains, "always"
// rules written since included, are not read (docs/decisions.md, "Resumed
// egress rules come from the journal"). cur lends what is not a rule: its
// resolver (tests), and its Persist when it names the same profile, so an
// "always" answer of the resumed session is still written to that
// profile's domains; for another profile it holds for the session only,
// and its record says so.
func egressOfRecord(r *events.NetworkRules, cur *Egress) (*Egress, error) {
	n := permissions.Network{Enabled: r.Enabled, AllowLocalBinding: r.AllowLocalBinding, Socks5: r.Socks5, ManagedOnly: r.ManagedOnly}
	switch m := permissions.Mode(r.Mode); m {
	case permissions.ModeLimited, permissions.ModeFull, "":
		n.Mode = m
	default:
		return nil, fmt.Errorf("engine: recorded network rules of profile %s: mode %q is neither limited nor full", r.Profile, r.Mode)
	}
	for _, d := range r.Domains {
		a := permissions.Action(d.Action)
		if a != permissions.Allow && a != permissions.Deny {
			return nil, fmt.Errorf("engine: recorded network rules of profile %s: domain %q: action %q is neither allow nor deny", r.Profile, d.Host, d.Action)
		}
		if d.Host == "" {
			return nil, fmt.Errorf("engine: recorded network rules of profile %s: a domain rule with no host", r.Profile)
		}
		n.Domains = append(n.Domains, permissions.DomainRule{Host: d.Host, Wildcard: d.Wildcard, Action: a, Key: d.Key})
	}
	for _, u := range r.UnixSockets {
		n.UnixSockets = append(n.UnixSockets, permissions.UnixSocket{Path: u.Path, Allow: u.Allow})
	}
	eg := &Egress{Network: n, Profile: r.Profile}
	if cur != nil {
		eg.Resolver = cur.Resolver
		if cur.Profile == r.Profile {
			eg.Persist = cur.Persist
		}
	}
	return eg, nil
}
