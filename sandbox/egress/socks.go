package egress

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"time"
)

// SOCKS5 reply codes (RFC 1928).
const (
	socksOK             = 0x00
	socksNotAllowed     = 0x02
	socksCmdUnsupported = 0x07
	socksAtypUnsupport  = 0x08
)

// serveSOCKS5 serves one SOCKS5 client: no authentication, CONNECT to a
// domain name only.
func (p *Proxy) serveSOCKS5(ctx context.Context, id uint64, c *bufConn) {
	req := Request{CallID: callIDOf(ctx), Conn: id, Protocol: ProtoSOCKS5}
	var hdr [2]byte
	if _, err := io.ReadFull(c.r, hdr[:]); err != nil {
		return
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(c.r, methods); err != nil {
		return
	}
	if p.opts.NoSOCKS5 {
		_, _ = c.Write([]byte{5, 0xff})
		p.record(ctx, Event{Request: req, Rule: "SOCKS5 is off (enable_socks5 = false)"})
		return
	}
	noAuth := false
	for _, m := range methods {
		noAuth = noAuth || m == 0
	}
	if !noAuth {
		_, _ = c.Write([]byte{5, 0xff})
		return
	}
	if _, err := c.Write([]byte{5, 0}); err != nil {
		return
	}
	var rq [4]byte
	if _, err := io.ReadFull(c.r, rq[:]); err != nil || rq[0] != 5 {
		return
	}
	host, err := readSOCKSAddr(c, rq[3])
	if err != nil {
		reply(c, socksAtypUnsupport)
		return
	}
	var port [2]byte
	if _, err := io.ReadFull(c.r, port[:]); err != nil {
		return
	}
	req.Host, req.Port = host, int(binary.BigEndian.Uint16(port[:]))
	refused := func(code byte, why string) {
		reply(c, code)
		p.record(ctx, Event{Request: req, Rule: why})
	}
	switch {
	case rq[1] != 1:
		refused(socksCmdUnsupported, "SOCKS5 command "+map[byte]string{2: "BIND", 3: "UDP ASSOCIATE"}[rq[1]]+" is not offered: CONNECT only")
		return
	case p.opts.Limited:
		refused(socksNotAllowed, "mode = \"limited\": SOCKS5 is refused (only GET, HEAD and OPTIONS in plain HTTP)")
		return
	case req.Port == 0:
		refused(socksNotAllowed, "port 0")
		return
	}
	h, err := hostOf(host)
	if err != nil {
		refused(socksNotAllowed, err.Error())
		return
	}
	req.Host = h
	dec, addrs, err := p.vet(ctx, req)
	if err != nil {
		var r *refusal
		if !errors.As(err, &r) {
			return
		}
		refused(socksNotAllowed, r.reason)
		return
	}
	if !reply(c, socksOK) {
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	p.tunnel(ctx, req, dec, addrs, c)
}

// readSOCKSAddr reads the destination; an IP address comes back as its
// text, for hostOf to refuse by name.
func readSOCKSAddr(c *bufConn, atyp byte) (string, error) {
	switch atyp {
	case 1, 4:
		b := make([]byte, map[byte]int{1: 4, 4: 16}[atyp])
		if _, err := io.ReadFull(c.r, b); err != nil {
			return "", err
		}
		a, _ := netip.AddrFromSlice(b)
		return a.String(), nil
	case 3:
		n, err := c.r.ReadByte()
		if err != nil {
			return "", err
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(c.r, b); err != nil {
			return "", err
		}
		return string(b), nil
	}
	return "", errors.New("unknown address type")
}

// reply sends a SOCKS5 reply with an unspecified bound address.
func reply(c net.Conn, code byte) bool {
	_, err := c.Write([]byte{5, code, 0, 1, 0, 0, 0, 0, 0, 0})
	return err == nil
}
