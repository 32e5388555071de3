package egress

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"
)

// maxHeaderBytes caps a request's header.
const maxHeaderBytes = 32 << 10

type addrsKey struct{}

// vetted is what a plain HTTP request may dial, passed to the transport
// through the request's context.
type vetted struct {
	addrs []netip.Addr
	port  int
	// connected records the connection, before the request is written.
	connected func(addr string)
}

// serveHTTP serves one HTTP client with net/http's server (header caps,
// keep-alive), one connection at a time.
func (p *Proxy) serveHTTP(ctx context.Context, id uint64, c *bufConn) {
	ln := &oneConnListener{conn: c, done: make(chan struct{})}
	transport := &http.Transport{
		Proxy:             nil,
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			v, _ := ctx.Value(addrsKey{}).(*vetted)
			if v == nil {
				return nil, errors.New("no vetted address")
			}
			up, err := p.dial(ctx, v.addrs, v.port)
			if err == nil {
				v.connected(up.RemoteAddr().String())
			}
			return up, err
		},
		ResponseHeaderTimeout: 5 * time.Minute,
	}
	defer transport.CloseIdleConnections()
	srv := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.handleHTTP(ctx, id, w, r, transport, ln.finish) }),
		ReadHeaderTimeout: p.opts.HandshakeTimeout,
		// An idle keep-alive client gives its slot back.
		IdleTimeout:    p.opts.HandshakeTimeout,
		MaxHeaderBytes: maxHeaderBytes,
		BaseContext:    func(net.Listener) context.Context { return ctx },
		ConnState: func(_ net.Conn, s http.ConnState) {
			// A hijacked connection is finished by its tunnel.
			if s == http.StateClosed {
				ln.finish()
			}
		},
	}
	srv.SetKeepAlivesEnabled(true)
	_ = srv.Serve(ln)
	<-ln.done
}

// handleHTTP decides one request: CONNECT opens a tunnel, an absolute URI
// is forwarded, anything else is not a proxy request.
func (p *Proxy) handleHTTP(ctx context.Context, id uint64, w http.ResponseWriter, r *http.Request, t *http.Transport, done func()) {
	req := Request{CallID: callIDOf(ctx), Conn: id}
	if r.Method == http.MethodConnect {
		req.Protocol = ProtoConnect
		host, port, err := net.SplitHostPort(r.RequestURI)
		if err != nil {
			http.Error(w, "CONNECT needs host:port", http.StatusBadRequest)
			return
		}
		req.Host = host
		p.connect(ctx, req, port, w, done)
		return
	}
	req.Protocol, req.Method = ProtoHTTP, r.Method
	if !r.URL.IsAbs() || r.URL.Host == "" {
		http.Error(w, "this is a proxy: send an absolute URI (http://host/path) or CONNECT", http.StatusBadRequest)
		return
	}
	refused := func(status int, why string) {
		p.record(ctx, Event{Request: req, Rule: why})
		http.Error(w, "docket egress proxy: refused: "+why, status)
	}
	req.Host = r.URL.Hostname()
	if r.URL.Scheme != "http" {
		refused(http.StatusBadRequest, "scheme "+r.URL.Scheme+": only http:// is forwarded (use CONNECT for TLS)")
		return
	}
	port := 80
	if ps := r.URL.Port(); ps != "" {
		n, err := splitPort(ps)
		if err != nil {
			refused(http.StatusBadRequest, err.Error())
			return
		}
		port = n
	}
	req.Port = port
	if p.opts.Limited && r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions {
		refused(http.StatusForbidden, "mode = \"limited\": "+r.Method+" is refused (only GET, HEAD and OPTIONS)")
		return
	}
	if p.opts.Limited && (r.ContentLength != 0 || len(r.TransferEncoding) > 0) {
		// A reading method with a body carries data out as a POST does:
		// Content-Length > 0, or chunked (length -1).
		refused(http.StatusForbidden, "mode = \"limited\": a "+r.Method+" with a body is refused (only reading requests, without a body)")
		return
	}
	if p.opts.Limited && httpguts.HeaderValuesContainsToken(r.Header["Connection"], "Upgrade") {
		// ReverseProxy relays a 101 both ways: a GET that upgrades (a
		// WebSocket) would carry anything, as CONNECT does.
		refused(http.StatusForbidden, "mode = \"limited\": a protocol upgrade ("+r.Header.Get("Upgrade")+") is refused (only GET, HEAD and OPTIONS)")
		return
	}
	h, err := hostOf(req.Host)
	if err != nil {
		refused(http.StatusForbidden, err.Error())
		return
	}
	req.Host = h
	dec, addrs, err := p.vet(ctx, req)
	if err != nil {
		refused(http.StatusForbidden, err.Error())
		return
	}
	var once sync.Once
	v := &vetted{addrs: addrs, port: port, connected: func(addr string) {
		once.Do(func() { p.record(ctx, Event{Request: req, Allowed: true, Rule: dec.Rule, Addr: addr}) })
	}}
	rp := &httputil.ReverseProxy{
		Transport: t,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Host = net.JoinHostPort(h, strconv.Itoa(port))
			pr.Out.Host = pr.Out.URL.Host
			if port == 80 {
				pr.Out.Host = h
			}
			pr.Out.Header.Del("Proxy-Authorization")
			pr.Out.Header.Del("Proxy-Connection")
			*pr.Out = *pr.Out.WithContext(context.WithValue(pr.Out.Context(), addrsKey{}, v))
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			once.Do(func() {
				p.record(ctx, Event{Request: req, Rule: "allowed by " + dec.Rule + ", but the upstream failed: " + err.Error()})
			})
			http.Error(w, "docket egress proxy: upstream: "+err.Error(), http.StatusBadGateway)
		},
	}
	rp.ServeHTTP(w, r)
}

// connect answers a CONNECT: refused with 403, or hijacked into a tunnel.
func (p *Proxy) connect(ctx context.Context, req Request, portText string, w http.ResponseWriter, done func()) {
	refused := func(why string) {
		p.record(ctx, Event{Request: req, Rule: why})
		http.Error(w, "docket egress proxy: refused: "+why, http.StatusForbidden)
	}
	port, err := splitPort(portText)
	if err != nil {
		refused(err.Error())
		return
	}
	req.Port = port
	if p.opts.Limited {
		refused("mode = \"limited\": CONNECT is refused (only GET, HEAD and OPTIONS in plain HTTP)")
		return
	}
	h, err := hostOf(req.Host)
	if err != nil {
		refused(err.Error())
		return
	}
	req.Host = h
	dec, addrs, err := p.vet(ctx, req)
	if err != nil {
		refused(err.Error())
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		refused("cannot take over the connection")
		return
	}
	conn, brw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer done()
	_ = conn.SetDeadline(time.Time{})
	if _, err := conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		return
	}
	// The server's reader may hold bytes the client already sent.
	bc := &bufConn{Conn: conn, r: brw.Reader}
	p.tunnel(ctx, req, dec, addrs, bc)
}

// oneConnListener hands one connection to an http.Server, then waits
// until that connection is done.
type oneConnListener struct {
	mu   sync.Mutex
	conn net.Conn
	done chan struct{}
	once sync.Once
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	c := l.conn
	l.conn = nil
	l.mu.Unlock()
	if c != nil {
		return c, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConnListener) finish()        { l.once.Do(func() { close(l.done) }) }
func (l *oneConnListener) Close() error   { l.finish(); return nil }
func (l *oneConnListener) Addr() net.Addr { return &net.TCPAddr{} }
