package egress

import (
	"fmt"
	"net"
	"net/netip"
)

// A name that resolves to one of this host's own addresses reaches the
// host itself, as loopback does: a service bound to every address (a
// development server on 0.0.0.0 or [::]) answers there. Such an address
// is public by its class when an interface has a public one (a global
// IPv6 address from the router, a server's public IPv4), so the class
// alone would let a person's allow, or a wildcard rule, open the host's
// own ports. The proxy asks the host for its addresses at each request.

// interfaceAddrs is the default Options.LocalAddrs: every interface's
// addresses.
func interfaceAddrs() ([]netip.Addr, error) {
	as, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("listing this host's addresses: %w", err)
	}
	out := make([]netip.Addr, 0, len(as))
	for _, a := range as {
		var ip net.IP
		switch v := a.(type) {
		case *net.IPNet:
			ip = v.IP
		case *net.IPAddr:
			ip = v.IP
		}
		if x, ok := netip.AddrFromSlice(ip); ok {
			out = append(out, x)
		}
	}
	return out, nil
}

// hostAddrs is a set of this host's addresses, unmapped and without
// zones.
type hostAddrs map[netip.Addr]bool

func newHostAddrs(list []netip.Addr) hostAddrs {
	h := make(hostAddrs, len(list))
	for _, a := range list {
		h[a.Unmap().WithZone("")] = true
	}
	return h
}

// reaches says whether a leads to this host: it is one of its addresses,
// or embeds one (a NAT64 or 6to4 address carrying the host's IPv4).
func (h hostAddrs) reaches(a netip.Addr) bool {
	if h[a.Unmap().WithZone("")] {
		return true
	}
	for _, v4 := range embeddedV4(a) {
		if h[v4] {
			return true
		}
	}
	return false
}
