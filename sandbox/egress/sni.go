package egress

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"slices"
	"time"

	"github.com/docket-engine/docket/states/permissions"
)

// maxHello bounds the bytes read to find a ClientHello's server name.
const maxHello = 64 << 10

// extECH is the encrypted_client_hello extension: it hides the real
// server name behind a public one.
const extECH = 0xfe0d

var errHelloRead = errors.New("hello read")

// helloConn feeds a TLS server the client's bytes, keeping a copy, and
// swallows what the server would write back.
type helloConn struct {
	net.Conn
	r io.Reader
}

func (h *helloConn) Read(p []byte) (int, error)  { return h.r.Read(p) }
func (h *helloConn) Write(p []byte) (int, error) { return len(p), nil }

// firstBytes reads what a tunnel's client sends first. For TLS it returns
// the ClientHello's bytes and its server name; an unreadable or encrypted
// ClientHello is refused. Anything else (or nothing before the handshake
// deadline: a protocol where the server speaks first) passes unread.
func (p *Proxy) firstBytes(ctx context.Context, c *bufConn) (sent []byte, sni string, tlsSeen bool, err error) {
	_ = c.SetReadDeadline(time.Now().Add(p.opts.HandshakeTimeout))
	defer func() { _ = c.SetReadDeadline(time.Time{}) }()
	b, err := c.r.Peek(1)
	if err != nil || b[0] != 0x16 {
		return nil, "", false, nil
	}
	var copyBuf bytes.Buffer
	var info *tls.ClientHelloInfo
	cfg := &tls.Config{GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
		info = h
		return nil, errHelloRead
	}}
	hc := &helloConn{Conn: c, r: io.TeeReader(io.LimitReader(c.r, maxHello), &copyBuf)}
	_ = tls.Server(hc, cfg).HandshakeContext(ctx)
	if info == nil {
		return nil, "", true, refuse("a TLS ClientHello the proxy could not read (within %d bytes)", maxHello)
	}
	if slices.Contains(info.Extensions, extECH) {
		return nil, "", true, refuse("an encrypted ClientHello (ECH) hides the server name")
	}
	return copyBuf.Bytes(), info.ServerName, true, nil
}

// checkSNI refuses a server name that differs from the host asked for.
// No server name at all (allowed by TLS) is accepted: the tunnel still
// goes to the address resolved from the host.
func checkSNI(host, sni string) error {
	if sni == "" {
		return nil
	}
	h, err := permissions.NormaliseHost(sni)
	want, err2 := permissions.NormaliseHost(host)
	if err != nil || err2 != nil {
		return refuse("TLS server name %q is not a host name", sni)
	}
	if h != want {
		return refuse("TLS server name %q differs from the host asked for (%s)", sni, host)
	}
	return nil
}
