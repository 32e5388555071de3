package permissions

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"golang.org/x/net/idna"
)

// Action is a network verdict.
type Action string

// The network verdicts.
const (
	Allow Action = "allow"
	Deny  Action = "deny"
	// Ask means no rule covers the host: the user decides, under the
	// approval policy (never: deny).
	Ask Action = "ask"
)

// DomainRule is one entry of [network.domains], normalised.
type DomainRule struct {
	// Host is the normalised host without the "*." of a wildcard.
	Host string
	// Wildcard says the rule was "*.Host": it covers subdomains only.
	Wildcard bool
	Action   Action
	// Key is the config key the rule came from.
	Key string
}

// Pattern is the rule as written after normalisation ("*.example.com").
func (d DomainRule) Pattern() string {
	if d.Wildcard {
		return "*." + d.Host
	}
	return d.Host
}

// UnixSocket is one entry of [network.unix_sockets].
type UnixSocket struct {
	Path  string
	Allow bool
}

// Network is a profile's network policy.
type Network struct {
	// Enabled: off means the command gets no network at all (no proxy).
	Enabled bool
	Mode    Mode
	// AllowAll is :danger-full-access: no proxy, no rules.
	AllowAll bool
	// Domains are sorted by pattern.
	Domains           []DomainRule
	UnixSockets       []UnixSocket
	AllowLocalBinding bool
	// Socks5 says the proxy also offers SOCKS5 (enable_socks5, default on).
	Socks5 bool
	// ManagedOnly is managed_allowed_domains_only: a host no rule allows
	// is denied, never asked about.
	ManagedOnly bool
}

// HostVerdict is the verdict on one host and the rule behind it.
type HostVerdict struct {
	Action Action
	// Rule is the rule that decided, nil for Ask and for a refused name.
	Rule *DomainRule
	// Exact says an exact (not wildcard) allow rule named the host: only
	// then may the proxy connect to a loopback, link-local or private
	// address the name resolves to.
	Exact bool
	// Reason explains a deny no rule gave (an IP literal, a bad name).
	Reason string
}

// Decide returns the verdict on the host a client asked for. Any
// matching deny wins; an IP literal or a name that is not a valid host
// name is denied; a host no rule covers is Ask.
func (n *Network) Decide(host string) HostVerdict {
	if !n.Enabled {
		return HostVerdict{Action: Deny, Reason: "the profile's network is off"}
	}
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if _, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		return HostVerdict{Action: Deny, Reason: "an IP address, not a name: rules are by name"}
	}
	h, err := normaliseHost(h)
	if err != nil {
		return HostVerdict{Action: Deny, Reason: "not a host name: " + err.Error()}
	}
	var allow *DomainRule
	exact := false
	for i := range n.Domains {
		d := &n.Domains[i]
		if !d.covers(h) {
			continue
		}
		if d.Action == Deny {
			return HostVerdict{Action: Deny, Rule: d}
		}
		if allow == nil || !d.Wildcard && allow.Wildcard {
			allow = d
			exact = !d.Wildcard
		}
	}
	if allow != nil {
		return HostVerdict{Action: Allow, Rule: allow, Exact: exact}
	}
	if n.ManagedOnly {
		return HostVerdict{Action: Deny, Reason: "managed_allowed_domains_only: no managed rule allows the host"}
	}
	return HostVerdict{Action: Ask}
}

// NormaliseHost returns the form hosts are compared in (lower case, no
// trailing dot, IDN as punycode), or an error for what is not a host name.
func NormaliseHost(host string) (string, error) {
	return normaliseHost(strings.TrimSuffix(strings.ToLower(host), "."))
}

func (d *DomainRule) covers(h string) bool {
	if d.Wildcard {
		return strings.HasSuffix(h, "."+d.Host)
	}
	return h == d.Host
}

var idnaProfile = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(true), idna.ValidateLabels(true), idna.VerifyDNSLength(true))

func normaliseHost(h string) (string, error) {
	if h == "" {
		return "", fmt.Errorf("empty")
	}
	a, err := idnaProfile.ToASCII(h)
	if err != nil {
		return "", err
	}
	return a, nil
}

// parseNetwork checks and normalises a [network] table.
func parseNetwork(name string, t *NetworkTable) (Network, []string, error) {
	n := Network{Mode: ModeFull, Socks5: true}
	if t == nil {
		return n, nil, nil
	}
	base := []string{"permissions", name, "network"}
	key := func(k ...string) string { return keyPath(append(append([]string(nil), base...), k...)...) }
	n.Enabled = t.Enabled != nil && *t.Enabled
	switch t.Mode {
	case "", "full":
	case "limited":
		n.Mode = ModeLimited
	default:
		return n, nil, &Error{Key: key("mode"), Msg: fmt.Sprintf(`want "limited" or "full", got %q`, t.Mode)}
	}
	if t.EnableSocks5 != nil {
		n.Socks5 = *t.EnableSocks5
	}
	n.AllowLocalBinding = t.AllowLocalBinding
	for pattern, v := range t.Domains {
		d, msg := parseDomain(pattern, v)
		if msg != "" {
			return n, nil, &Error{Key: key("domains", pattern), Msg: msg}
		}
		d.Key = key("domains", pattern)
		n.Domains = append(n.Domains, d)
	}
	sort.Slice(n.Domains, func(i, j int) bool {
		a, b := n.Domains[i], n.Domains[j]
		if a.Pattern() != b.Pattern() {
			return a.Pattern() < b.Pattern()
		}
		return a.Action == Deny && b.Action != Deny
	})
	for p, v := range t.UnixSockets {
		if !strings.HasPrefix(p, "/") {
			return n, nil, &Error{Key: key("unix_sockets", p), Msg: "a unix socket must be an absolute path"}
		}
		switch v {
		case "allow":
			n.UnixSockets = append(n.UnixSockets, UnixSocket{Path: p, Allow: true})
		case "none", "deny":
			n.UnixSockets = append(n.UnixSockets, UnixSocket{Path: p})
		default:
			return n, nil, &Error{Key: key("unix_sockets", p), Msg: fmt.Sprintf(`want "allow" or "none", got %q`, v)}
		}
	}
	sort.Slice(n.UnixSockets, func(i, j int) bool { return n.UnixSockets[i].Path < n.UnixSockets[j].Path })
	var warnings []string
	ignored := map[string]bool{"proxy_url": t.ProxyURL != "", "socks_url": t.SocksURL != "", "enable_socks5_udp": t.EnableSocks5UDP != nil,
		"allow_upstream_proxy": t.AllowUpstreamProxy != nil, "dangerously_allow_non_loopback_proxy": t.DangerouslyAllowNonLoopbackProxy != nil, "mitm": t.MITM != nil}
	for _, k := range []string{"allow_upstream_proxy", "dangerously_allow_non_loopback_proxy", "enable_socks5_udp", "mitm", "proxy_url", "socks_url"} {
		if ignored[k] {
			warnings = append(warnings, key(k)+" is ignored: Docket's egress proxy is per session, on loopback addresses it chooses, and never terminates TLS")
		}
	}
	return n, warnings, nil
}

// parseDomain checks one domains entry.
func parseDomain(pattern, v string) (DomainRule, string) {
	var d DomainRule
	switch v {
	case "allow":
		d.Action = Allow
	case "deny":
		d.Action = Deny
	default:
		return d, fmt.Sprintf(`want "allow" or "deny", got %q`, v)
	}
	h := strings.TrimSuffix(strings.ToLower(pattern), ".")
	if strings.HasPrefix(h, "*.") {
		d.Wildcard = true
		h = h[2:]
	}
	switch {
	case strings.Contains(h, "://") || strings.ContainsAny(h, "/?#@"):
		return d, "a domain rule is a host name, not a URL"
	case strings.Contains(h, "*"):
		return d, `a wildcard may only be a leading "*." (as in "*.example.com"); "*" alone is not a rule`
	case strings.Contains(h, ":") || strings.HasPrefix(h, "["):
		if _, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
			return d, "an IP address is not a domain rule: the proxy decides by name"
		}
		return d, "a domain rule cannot have a port: it covers every port of the host"
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return d, "an IP address is not a domain rule: the proxy decides by name"
	}
	a, err := normaliseHost(h)
	if err != nil {
		return d, "not a host name: " + err.Error()
	}
	if d.Wildcard && !strings.Contains(a, ".") {
		return d, fmt.Sprintf("%q would cover a whole top-level domain", pattern)
	}
	d.Host = a
	return d, ""
}
