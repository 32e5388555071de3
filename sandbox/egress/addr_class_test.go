package egress

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

func TestAddressesAreClassedByWhatTheyReach(t *testing.T) {
	cases := []struct {
		name, addr string
		want       addrClass
	}{
		{"a public IPv4 address", "1.1.1.1", classPublic},
		{"a public IPv6 address", "2606:4700::1111", classPublic},
		{"IPv4 loopback", "127.0.0.1", classLoopback},
		{"IPv6 loopback", "::1", classLoopback},
		{"the unspecified IPv4 address connects to the host", "0.0.0.0", classLoopback},
		{"this network, 0.0.0.0/8", "0.1.2.3", classLoopback},
		{"the unspecified IPv6 address", "::", classLoopback},
		{"RFC 1918 10/8", "10.1.2.3", classPrivate},
		{"RFC 1918 172.16/12", "172.31.0.1", classPrivate},
		{"RFC 1918 192.168/16", "192.168.1.1", classPrivate},
		{"shared address space (CGNAT)", "100.64.0.1", classPrivate},
		{"link-local: the cloud metadata endpoint", "169.254.169.254", classPrivate},
		{"IPv6 link-local", "fe80::1", classPrivate},
		{"IPv6 link-local with a zone", "fe80::1%eth0", classPrivate},
		{"unique local", "fd00::1", classPrivate},
		{"site-local (deprecated)", "fec0::1", classPrivate},
		{"IPv4-mapped loopback", "::ffff:127.0.0.1", classLoopback},
		{"IPv4-mapped private", "::ffff:10.0.0.1", classPrivate},
		{"IPv4-mapped public", "::ffff:1.1.1.1", classPublic},
		{"IPv4-compatible loopback", "::127.0.0.1", classLoopback},
		{"IPv4-compatible metadata", "::169.254.169.254", classPrivate},
		{"NAT64 well-known prefix embedding loopback", "64:ff9b::127.0.0.1", classLoopback},
		{"NAT64 well-known prefix embedding 10/8", "64:ff9b::a00:1", classPrivate},
		{"NAT64 well-known prefix embedding the metadata endpoint", "64:ff9b::169.254.169.254", classPrivate},
		{"NAT64 well-known prefix embedding a public address", "64:ff9b::1.1.1.1", classPublic},
		{"local-use NAT64 is a site's own", "64:ff9b:1:0101:0:0101::", classPrivate},
		{"local-use NAT64 embedding loopback (RFC 6052 /48 layout)", "64:ff9b:1:7f00:0:1::", classLoopback},
		{"6to4 embedding loopback", "2002:7f00:1::1", classLoopback},
		{"6to4 embedding 192.168/16", "2002:c0a8:101::1", classPrivate},
		{"6to4 embedding a public address", "2002:101:101::1", classPublic},
		{"Teredo whose client is loopback (stored inverted)", "2001:0:101:101::80ff:fffe", classLoopback},
		{"Teredo whose server is private", "2001:0:a00:1::fefe:fefe", classPrivate},
		{"Teredo with public ends is still a tunnel, not global", "2001:0:101:101::fefe:fefe", classReserved},
		{"documentation TEST-NET-1", "192.0.2.1", classReserved},
		{"documentation TEST-NET-2", "198.51.100.1", classReserved},
		{"documentation TEST-NET-3", "203.0.113.1", classReserved},
		{"IPv6 documentation", "2001:db8::1", classReserved},
		{"IPv6 documentation (RFC 9637)", "3fff::1", classReserved},
		{"benchmarking 198.18/15", "198.19.255.1", classReserved},
		{"IPv6 benchmarking", "2001:2::1", classReserved},
		{"IETF protocol assignments", "192.0.0.8", classReserved},
		{"6to4 relay anycast", "192.88.99.1", classReserved},
		{"IPv4 multicast", "224.0.0.1", classReserved},
		{"reserved 240/4", "240.0.0.1", classReserved},
		{"broadcast", "255.255.255.255", classReserved},
		{"IPv6 multicast", "ff02::1", classReserved},
		{"discard-only", "100::1", classReserved},
		{"IPv6 outside 2000::/3", "4000::1", classReserved},
		{"SRv6 SIDs", "5f00::1", classReserved},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := netip.ParseAddr(tc.addr)
			if err != nil {
				t.Fatal(err)
			}
			if got := classify(a); got != tc.want {
				t.Fatalf("classify(%s) = %s, want %s", tc.addr, got, tc.want)
			}
			if publicAddr(a) != (tc.want == classPublic) {
				t.Fatalf("publicAddr(%s) = %v, want %v", tc.addr, publicAddr(a), tc.want == classPublic)
			}
		})
	}
}

// translatingDial is a network with a NAT64 translator, a 6to4 relay and
// IPv4-mapped sockets, as a host on a DNS64/NAT64 network has: an address
// embedding an IPv4 address is carried to that address. Everything else
// is dialPublic.
func translatingDial(ctx context.Context, network, addr string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, err
	}
	if v4 := embeddedV4(ap.Addr()); ap.Addr().Is6() && len(v4) == 1 {
		addr = netip.AddrPortFrom(v4[0], ap.Port()).String()
	}
	return dialPublic(ctx, network, addr)
}

func TestAPersonsAllowDoesNotOpenALoopbackAddressHiddenInIPv6(t *testing.T) {
	_, port, hits := upstream(t)
	n := testNames()
	n["nat64.test"] = []netip.Addr{netip.MustParseAddr("64:ff9b::127.0.0.1")}
	n["sixtofour.test"] = []netip.Addr{netip.MustParseAddr("2002:7f00:1::1")}
	n["compat.test"] = []netip.Addr{netip.MustParseAddr("::127.0.0.1")}
	h := startProxy(t, "full", func(o *Options) { o.Resolver, o.Dial = n, translatingDial })
	h.ask.answer = AllowSession

	// The attack: on such a network each address reaches the loopback
	// server, so a name resolving to it is a way to the host's own ports.
	for _, a := range []string{"[64:ff9b::127.0.0.1]", "[2002:7f00:1::1]", "[::127.0.0.1]"} {
		c, err := translatingDial(context.Background(), "tcp", a+":"+port)
		if err != nil {
			t.Fatalf("the test network does not carry %s to loopback: %v", a, err)
		}
		_ = c.Close()
	}

	c := h.client()
	for i, host := range []string{"nat64.test", "sixtofour.test", "compat.test"} {
		code, body, err := get(c, "http://"+host+":"+port+"/")
		if err != nil || code != http.StatusForbidden {
			t.Fatalf("GET %s with the person's allow: %d %q %v, want 403", host, code, body, err)
		}
		ev := h.rec.nth(t, i+1)
		if ev.Allowed || !strings.Contains(ev.Rule, "loopback") {
			t.Fatalf("event for %s = %+v, want a refusal naming loopback", host, ev)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the loopback server was reached %d times", hits.Load())
	}
}
