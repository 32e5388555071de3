// Package egress is the per-session egress proxy: the only way out of a
// sandboxed command's empty network namespace. One listener speaks HTTP
// (CONNECT, and requests with an absolute URI) and SOCKS5, told apart by
// the first byte.
//
// The proxy decides by the name the client asked for, never by an address:
// an IP literal in a CONNECT, an absolute URI or a SOCKS request is
// refused; a name is resolved by the proxy itself, and an address that is
// not public is refused unless the decision says the name may reach such
// addresses (an exact allow rule). Not public: loopback, unspecified and
// 0.0.0.0/8, private, shared, link-local, unique local, multicast, and
// RFC 6890's special ranges (documentation, benchmarking, ...), and an
// IPv6 address embedding such an IPv4 address (mapped, compatible, NAT64,
// 6to4, Teredo) is classed by what it embeds (addr_class.go). One of
// this host's own addresses, public ones included, is refused the same
// way: it reaches the host's services as loopback does (hostaddrs.go).
// It dials the address it resolved, so a name that resolves
// differently a moment later (DNS rebinding) changes nothing. After a
// CONNECT (or a SOCKS CONNECT) the client's first bytes are read before
// the tunnel opens: a TLS ClientHello whose server name (SNI) differs from
// the host the client asked for is refused, as is one the proxy cannot
// read whole.
//
// Every decision goes through a Decider (allow, deny, or ask a person,
// which engine journals durably before answering) and every connection's
// outcome is handed to a Recorder before a byte is forwarded, so the
// journal says what a command reached and why.
//
// Bounds: at most Options.MaxConns connections of one call (one Serve)
// and Options.MaxSessionConns of all calls are served at once (the rest
// wait in the kernel's accept queue, costing the proxy nothing), a
// client has Options.HandshakeTimeout to say where it wants to go, and a
// request header is capped at maxHeaderBytes.
package egress
