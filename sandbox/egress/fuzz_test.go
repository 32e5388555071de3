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
	network := testNetwork(f, "full")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	defer ln.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := New(Options{
			Decider:          &ProfileDecider{Network: network},
			Resolver:         testNames(),
			HandshakeTimeout: 50 * time.Millisecond,
			Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
				// Only the allowed names (each resolving to loopback, which
				// an exact rule opens) may be dialled, at any port but 0.
				if ap, err := netip.ParseAddrPort(addr); err != nil || ap.Addr() != loop[0] || ap.Port() == 0 {
					t.Errorf("dialled %s", addr)
				}
				// An upstream that answers at once and hangs up.
				a, b := net.Pipe()
				go func() {
					go func() { _, _ = io.Copy(io.Discard, b) }()
					_, _ = b.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n"))
					_ = b.Close()
				}()
				return a, nil
			},
		})
		// A real TCP connection, so the client's end of input is a half
		// close the proxy reads as EOF: each input takes what the proxy
		// takes, not a timeout.
		client, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		server, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			_ = client.SetDeadline(time.Now().Add(2 * time.Second))
			_, _ = client.Write(data)
			_ = client.(*net.TCPConn).CloseWrite()
			_, _ = io.Copy(io.Discard, client)
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		stop := context.AfterFunc(ctx, func() { _ = server.Close() })
		defer stop()
		p.serveConn(ctx, server)
		_ = server.Close()
	})
}
