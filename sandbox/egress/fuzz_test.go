package egress

import (
	"context"
	"io"
	"net"
	"net/netip"
	"testing"
	"time"
)

// FuzzClientBytes feeds arbitrary first bytes (HTTP, SOCKS5, TLS after a
// CONNECT) to the proxy: it must not panic, and must dial nothing but an
// address a decision allowed.
func FuzzClientBytes(f *testing.F) {
	f.Add([]byte("CONNECT allowed.test:443 HTTP/1.1\r\nHost: x\r\n\r\n\x16\x03\x01\x00\x05\x01\x00\x00\x01\x00"))
	f.Add([]byte("GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n"))
	f.Add([]byte{5, 1, 0, 5, 1, 0, 3, 12, 'a', 'l', 'l', 'o', 'w', 'e', 'd', '.', 't', 'e', 's', 't', 0, 80})
	f.Add([]byte{5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, 0, 80})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := New(Options{
			Decider:          &ProfileDecider{Network: testNetwork(t, "full")},
			Resolver:         testNames(),
			HandshakeTimeout: 50 * time.Millisecond,
			Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
				// Only the allowed names (each resolving to loopback, which
				// an exact rule opens) may be dialled, at any port but 0.
				if ap, err := netip.ParseAddrPort(addr); err != nil || ap.Addr() != loop[0] || ap.Port() == 0 {
					t.Errorf("dialled %s", addr)
				}
				a, b := net.Pipe()
				go func() { _, _ = io.Copy(io.Discard, b); b.Close() }()
				return a, nil
			},
		})
		client, server := net.Pipe()
		go func() {
			_ = client.SetDeadline(time.Now().Add(time.Second))
			_, _ = client.Write(data)
			_, _ = io.Copy(io.Discard, client)
		}()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		go func() { <-ctx.Done(); server.Close(); client.Close() }()
		p.serveConn(ctx, server)
	})
}
