package egress

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/states/permissions"
)

// anyName resolves every name to one public address: whatever host a
// client names, only the decision stands between it and a dial.
type anyName struct{}

func (anyName) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{public}, nil
}

// hostRequest is the first bytes of a request for host:port in one of
// the proxy's three protocols.
func hostRequest(kind uint8, host string, port uint16) []byte {
	hp := net.JoinHostPort(host, strconv.Itoa(int(port)))
	switch kind % 3 {
	case 0:
		return []byte("CONNECT " + hp + " HTTP/1.1\r\nHost: " + hp + "\r\n\r\n")
	case 1:
		return []byte("GET http://" + hp + "/ HTTP/1.1\r\nHost: " + hp + "\r\n\r\n")
	}
	b := []byte{5, 1, 0, 5, 1, 0, 3, byte(len(host))}
	b = append(b, host[:min(len(host), 255)]...)
	return binary.BigEndian.AppendUint16(b, port)
}

// FuzzRequestHost asks the proxy, by CONNECT, by an absolute URI or by
// SOCKS5, for any host and port, every name resolving to a public
// address and nobody to ask. It dials only the address resolved, at the
// port asked, and only for a host the profile allows as the proxy
// normalises it; an IP literal is never dialled; every outcome it
// records has a rule saying why.
func FuzzRequestHost(f *testing.F) {
	for kind := uint8(0); kind < 3; kind++ {
		f.Add(kind, "allowed.test", uint16(443))
		f.Add(kind, "ALLOWED.test.", uint16(80))
		f.Add(kind, "denied.test", uint16(80))
		f.Add(kind, "x.wild.test", uint16(8080))
		f.Add(kind, "bücher.test", uint16(443))
		f.Add(kind, "127.0.0.1", uint16(80))
		f.Add(kind, "[::1]", uint16(80))
		f.Add(kind, "allowed.test\r\nX: y", uint16(80))
		f.Add(kind, "allowed.test:80@evil.test", uint16(80))
		f.Add(kind, "", uint16(0))
	}
	network := testNetwork(f, "full")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	defer ln.Close()
	f.Fuzz(func(t *testing.T, kind uint8, host string, port uint16) {
		var mu sync.Mutex
		var dialled []string
		var evs []Event
		p := New(Options{
			Decider:          &ProfileDecider{Network: network},
			Resolver:         anyName{},
			LocalAddrs:       func() ([]netip.Addr, error) { return nil, nil },
			HandshakeTimeout: 100 * time.Millisecond,
			Record:           func(ev Event) { mu.Lock(); evs = append(evs, ev); mu.Unlock() },
			Dial: func(_ context.Context, _, addr string) (net.Conn, error) {
				mu.Lock()
				dialled = append(dialled, addr)
				mu.Unlock()
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
			_, _ = client.Write(hostRequest(kind, host, port))
			_ = client.(*net.TCPConn).CloseWrite()
			_, _ = io.Copy(io.Discard, client)
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		stop := context.AfterFunc(ctx, func() { _ = server.Close() })
		defer stop()
		p.serveConn(ctx, server)
		_ = server.Close()

		mu.Lock()
		defer mu.Unlock()
		want := netip.AddrPortFrom(public, port).String()
		for _, a := range dialled {
			if a != want {
				t.Fatalf("asked for %q port %d, dialled %s", host, port, a)
			}
		}
		allowed := false
		for _, ev := range evs {
			if ev.Rule == "" {
				t.Fatalf("an outcome without a rule: %+v", ev)
			}
			// A forwarded request whose client went away while the
			// transport dialled is recorded as the upstream failing, under
			// the rule that allowed it: the dial still had a decision.
			if !ev.Allowed && !strings.HasPrefix(ev.Rule, "allowed by ") {
				continue
			}
			allowed = true
			if v := network.Decide(ev.Host); v.Action != permissions.Allow {
				t.Fatalf("allowed %q (asked %q), which the profile does not allow: %+v", ev.Host, host, v)
			}
			if _, err := netip.ParseAddr(ev.Host); err == nil {
				t.Fatalf("allowed the IP literal %q", ev.Host)
			}
		}
		if len(dialled) > 0 && !allowed {
			// A tunnel records its connection before relaying, a forwarded
			// request once the transport connected: both before the end.
			t.Fatalf("dialled %v for %q with no allowing decision recorded (%+v)", dialled, host, evs)
		}
	})
}
