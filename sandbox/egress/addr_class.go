package egress

import (
	"net/netip"
)

// addrClass is what an address really reaches, for the proxy's rule that
// only an exact allow rule opens a non-public address.
type addrClass int

// The classes, from public to the most local.
const (
	classPublic addrClass = iota
	// classReserved is an address not routed on the internet: documentation,
	// benchmarking, protocol assignments, multicast, broadcast, reserved.
	classReserved
	// classPrivate is a private network: RFC 1918, shared (CGNAT), link-local,
	// unique local, a local-use NAT64 prefix.
	classPrivate
	// classLoopback reaches this host: loopback, and the unspecified and
	// "this network" addresses, which Linux connects to the host itself.
	classLoopback
)

func (c addrClass) String() string {
	switch c {
	case classPublic:
		return "public"
	case classReserved:
		return "reserved"
	case classPrivate:
		return "private"
	}
	return "loopback"
}

// special is a range of RFC 6890's registries (and the ranges added since)
// that is not globally reachable, with the class of what it reaches.
type special struct {
	prefix netip.Prefix
	class  addrClass
}

func mustPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// specialRanges are checked against an address and against every IPv4
// address it embeds (mapped, compatible, NAT64, 6to4, Teredo). A
// function, not a package variable: no package-level mutable state.
func specialRanges() []special {
	return []special{
		{mustPrefix("0.0.0.0/8"), classLoopback},       // this network: 0.0.0.0 connects to the host
		{mustPrefix("10.0.0.0/8"), classPrivate},       // RFC 1918
		{mustPrefix("100.64.0.0/10"), classPrivate},    // shared address space (CGNAT)
		{mustPrefix("127.0.0.0/8"), classLoopback},     // loopback
		{mustPrefix("169.254.0.0/16"), classPrivate},   // link-local (cloud metadata)
		{mustPrefix("172.16.0.0/12"), classPrivate},    // RFC 1918
		{mustPrefix("192.0.0.0/24"), classReserved},    // IETF protocol assignments
		{mustPrefix("192.0.2.0/24"), classReserved},    // TEST-NET-1
		{mustPrefix("192.31.196.0/24"), classReserved}, // AS112
		{mustPrefix("192.52.193.0/24"), classReserved}, // AMT
		{mustPrefix("192.88.99.0/24"), classReserved},  // 6to4 relay anycast (deprecated)
		{mustPrefix("192.168.0.0/16"), classPrivate},   // RFC 1918
		{mustPrefix("192.175.48.0/24"), classReserved}, // direct delegation AS112
		{mustPrefix("198.18.0.0/15"), classReserved},   // benchmarking
		{mustPrefix("198.51.100.0/24"), classReserved}, // TEST-NET-2
		{mustPrefix("203.0.113.0/24"), classReserved},  // TEST-NET-3
		{mustPrefix("224.0.0.0/4"), classReserved},     // multicast
		{mustPrefix("240.0.0.0/4"), classReserved},     // reserved, and the broadcast address
		{mustPrefix("::/128"), classLoopback},          // unspecified
		{mustPrefix("::1/128"), classLoopback},         // loopback
		{mustPrefix("64:ff9b:1::/48"), classPrivate},   // local-use NAT64 (RFC 8215): a site's own translator
		{mustPrefix("100::/64"), classReserved},        // discard-only
		{mustPrefix("2001::/23"), classReserved},       // IETF protocol assignments, Teredo (2001::/32) included
		{mustPrefix("2001:db8::/32"), classReserved},   // documentation
		{mustPrefix("3fff::/20"), classReserved},       // documentation (RFC 9637)
		{mustPrefix("5f00::/16"), classReserved},       // SRv6 SIDs (RFC 9602)
		{mustPrefix("fc00::/7"), classPrivate},         // unique local
		{mustPrefix("fe80::/10"), classPrivate},        // link-local
		{mustPrefix("fec0::/10"), classPrivate},        // site-local (deprecated)
		{mustPrefix("ff00::/8"), classReserved},        // multicast
	}
}

// embeddedV4 returns the IPv4 addresses an IPv6 address carries and
// reaches through: IPv4-mapped and IPv4-compatible (::/96), NAT64 (the
// well-known 64:ff9b::/96 and the local-use 64:ff9b:1::/48, RFC 6052's
// layout), 6to4 (2002::/16) and Teredo (2001::/32: its server and its
// client, whose address is stored inverted). An IPv4 address is its own.
func embeddedV4(a netip.Addr) []netip.Addr {
	if a.Is4() {
		return []netip.Addr{a}
	}
	b := a.As16()
	v4 := func(x, y, z, w byte) netip.Addr { return netip.AddrFrom4([4]byte{x, y, z, w}) }
	switch {
	case a.Is4In6():
		return []netip.Addr{a.Unmap()}
	case mustPrefix("::/96").Contains(a):
		return []netip.Addr{v4(b[12], b[13], b[14], b[15])}
	case mustPrefix("64:ff9b::/96").Contains(a):
		return []netip.Addr{v4(b[12], b[13], b[14], b[15])}
	case mustPrefix("64:ff9b:1::/48").Contains(a):
		// A /48 prefix: the IPv4 address in bits 48-63 and 72-87, around
		// the u octet (bits 64-71).
		return []netip.Addr{v4(b[6], b[7], b[9], b[10])}
	case mustPrefix("2002::/16").Contains(a):
		return []netip.Addr{v4(b[2], b[3], b[4], b[5])}
	case mustPrefix("2001::/32").Contains(a):
		return []netip.Addr{v4(b[4], b[5], b[6], b[7]), v4(^b[12], ^b[13], ^b[14], ^b[15])}
	}
	return nil
}

// classify says what an address really reaches: the most local class of
// the address itself and of every IPv4 address it embeds, so a NAT64 or
// 6to4 address carrying 127.0.0.1 is loopback. An IPv6 address outside
// 2000::/3, the only range allocated for global unicast, is reserved.
func classify(a netip.Addr) addrClass {
	if !a.IsValid() {
		return classReserved
	}
	a = a.WithZone("")
	worst := classOf(a)
	for _, v4 := range embeddedV4(a) {
		if c := classOf(v4); c > worst {
			worst = c
		}
	}
	return worst
}

// classOf is one address's class by the special ranges and Go's own
// tests, without looking inside it.
func classOf(a netip.Addr) addrClass {
	worst := classPublic
	for _, s := range specialRanges() {
		if s.prefix.Contains(a) && s.class > worst {
			worst = s.class
		}
	}
	switch {
	case a.IsLoopback() || a.IsUnspecified():
		return classLoopback
	case a.IsPrivate() || a.IsLinkLocalUnicast():
		if worst < classPrivate {
			worst = classPrivate
		}
	case a.IsMulticast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || !a.IsGlobalUnicast():
		if worst < classReserved {
			worst = classReserved
		}
	}
	if a.Is6() && !a.Is4In6() && !mustPrefix("2000::/3").Contains(a) && worst < classReserved && len(embeddedV4(a)) == 0 {
		worst = classReserved
	}
	return worst
}
