package egress

import (
	"context"
	"io"
	"net"
	"net/netip"
	"sync"
)

// tunnel runs once the client was told its tunnel is open: it reads the
// client's first bytes, checks a TLS server name against the host, dials,
// records the connection and relays.
func (p *Proxy) tunnel(ctx context.Context, req Request, dec Decision, addrs []netip.Addr, c *bufConn) {
	ev := Event{Request: req}
	first, sni, _, err := p.firstBytes(ctx, c)
	ev.SNI = sni
	if err == nil {
		err = checkSNI(req.Host, sni)
	}
	if err != nil {
		ev.Rule = err.Error()
		p.record(ctx, ev)
		return
	}
	up, err := p.dial(ctx, addrs, req.Port)
	if err != nil {
		ev.Rule = "allowed by " + dec.Rule + ", but the upstream did not answer: " + err.Error()
		p.record(ctx, ev)
		return
	}
	defer func() { _ = up.Close() }()
	stop := context.AfterFunc(ctx, func() { _ = up.Close() })
	defer stop()
	ev.Allowed, ev.Rule, ev.Addr = true, dec.Rule, up.RemoteAddr().String()
	p.record(ctx, ev)
	if len(first) > 0 {
		if _, err := up.Write(first); err != nil {
			return
		}
	}
	relay(c, up)
}

// relay copies both ways until both directions end, passing a half close
// on, so a client that shuts down its writing still reads the answer.
func relay(client *bufConn, up net.Conn) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(up, client)
		closeWrite(up)
	}()
	go func() {
		defer wg.Done()
		_, _ = io.Copy(client.Conn, up)
		closeWrite(client.Conn)
	}()
	wg.Wait()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	_ = c.Close()
}
