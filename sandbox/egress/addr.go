package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// refusal is a request the proxy turned away, with the reason recorded.
type refusal struct{ reason string }

func (r *refusal) Error() string { return r.reason }

func refuse(format string, a ...any) error { return &refusal{reason: fmt.Sprintf(format, a...)} }

// publicAddr reports whether an address is one a name may lead to without
// a rule saying so: it reaches neither this host nor a private network,
// and is routed on the internet, whatever IPv4 address it embeds
// (classify).
func publicAddr(a netip.Addr) bool { return classify(a) == classPublic }

// hostOf normalises the host a client sent: lower case, brackets and a
// trailing dot dropped. It refuses an IP literal: rules are by name.
func hostOf(host string) (string, error) {
	h := strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if h == "" {
		return "", refuse("no host")
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return "", refuse("an IP address (%s), not a name: the proxy decides by name", host)
	}
	return h, nil
}

// splitPort parses a port, 1 to 65535.
func splitPort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, refuse("bad port %q", s)
	}
	return n, nil
}

// vet decides a request and resolves its host to the addresses it may
// reach. A refusal comes back as *refusal with the decision's rule.
func (p *Proxy) vet(ctx context.Context, req Request) (Decision, []netip.Addr, error) {
	dec, err := p.opts.Decider.Decide(ctx, req)
	if err != nil {
		return dec, nil, refuse("no decision (%v): refused", err)
	}
	if !dec.Allow {
		return dec, nil, refuse("%s", dec.Rule)
	}
	lctx, cancel := context.WithTimeout(ctx, p.opts.DialTimeout)
	defer cancel()
	addrs, err := p.opts.Resolver.LookupNetIP(lctx, "ip", req.Host)
	if err != nil {
		return dec, nil, refuse("%s allowed by %s, but it does not resolve: %v", req.Host, dec.Rule, err)
	}
	var local hostAddrs
	if !dec.AllowPrivate {
		list, err := p.opts.LocalAddrs()
		if err != nil {
			// Which address is the host's own is unknown: fail closed.
			return dec, nil, refuse("%s allowed by %s, but this host's own addresses, which only an exact allow rule may reach, cannot be told: %v", req.Host, dec.Rule, err)
		}
		local = newHostAddrs(list)
	}
	var ok []netip.Addr
	for _, a := range addrs {
		if dec.AllowPrivate || (publicAddr(a) && !local.reaches(a)) {
			ok = append(ok, a.Unmap())
		}
	}
	if len(ok) == 0 {
		return dec, nil, refuse("%s resolves only to this host's own, loopback, private or reserved addresses (%s), which only an exact allow rule for the name may reach", req.Host, describeAddrs(addrs, local))
	}
	return dec, ok, nil
}

// dial connects to the first of addrs that answers.
func (p *Proxy) dial(ctx context.Context, addrs []netip.Addr, port int) (net.Conn, error) {
	var errs []error
	for _, a := range addrs {
		c, err := p.opts.Dial(ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// describeAddrs names each address with its class, for a refusal: an
// address embedding another says what it reaches (64:ff9b::7f00:1 is
// loopback), and one of local is "this host" whatever its class.
func describeAddrs(addrs []netip.Addr, local hostAddrs) string {
	parts := make([]string, len(addrs))
	for i, a := range addrs {
		what := classify(a).String()
		if local.reaches(a) {
			what = "this host"
		}
		parts[i] = a.String() + " " + what
	}
	return strings.Join(parts, ", ")
}
