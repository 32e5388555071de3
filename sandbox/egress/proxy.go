package egress

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Resolver looks names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Event is one connection's outcome, handed to Options.Record before a
// byte is forwarded (or when it is refused).
type Event struct {
	Request
	Allowed bool
	// Rule is what decided (a profile key, a person's answer), or why the
	// proxy refused before or after asking (an IP literal, an SNI that
	// differs, a private address).
	Rule string
	// Addr is the address dialled, for an allowed connection.
	Addr string
	// SNI is the server name of the client's TLS ClientHello, if any.
	SNI string
	// Refusals, on a summary, is how many refusals of Host (or, with no
	// Host, of other hosts) the event stands for: past a call's first
	// Options.RefusalsInFull they are counted, not recorded one by one.
	Refusals int
}

// Options configure a Proxy. Decider is required.
type Options struct {
	Decider Decider
	// Record receives every connection's outcome; it may block (to journal
	// durably) and the connection waits. Nil records nothing.
	Record func(Event)
	// Resolver defaults to net.DefaultResolver.
	Resolver Resolver
	// Dial defaults to a net.Dialer with DialTimeout.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Limited is the profile's mode = "limited": only GET, HEAD and
	// OPTIONS in plain HTTP, without a body or an upgrade; CONNECT and
	// SOCKS are refused (Docket never terminates TLS, so it cannot see the
	// methods inside).
	Limited bool
	// NoSOCKS5 refuses SOCKS5 clients (enable_socks5 = false).
	NoSOCKS5 bool
	// MaxConns bounds the connections one Serve (one call's listener)
	// serves at once (default 64): a call that holds its maximum, idle
	// tunnels included, leaves the other calls theirs.
	MaxConns int
	// MaxSessionConns bounds the connections all of the proxy's Serves
	// serve at once (default 1024, sixteen calls at their maximum): a
	// backstop for the descriptors of docket's process, not a share.
	MaxSessionConns int
	// RefusalsInFull is how many refusals of one call (one Serve) are
	// recorded one by one (default 32); the rest are counted per host and
	// recorded as summaries (Event.Refusals): every 1000 of a host, and
	// what remains when the Serve ends. A command refused in a loop does
	// not grow the journal without bound, and the journal still says how
	// many refusals there were.
	RefusalsInFull int
	// HandshakeTimeout bounds how long a client may take to say where it
	// goes, and to send its first bytes after a CONNECT (default 10 s).
	HandshakeTimeout time.Duration
	// DialTimeout bounds a connection to an upstream (default 10 s).
	DialTimeout time.Duration
	// LocalAddrs lists this host's own addresses (default: every
	// interface's, read at each request, as addresses come and go). A
	// name resolving to one of them reaches the host's own services bound
	// to every address, as loopback does, whatever its class: it is
	// refused unless an exact allow rule names it (hostAddrs).
	LocalAddrs func() ([]netip.Addr, error)
}

// Proxy is a per-session egress proxy. Create it with New and run it with
// Serve; it is safe for concurrent use.
type Proxy struct {
	opts   Options
	nextID atomic.Uint64
	active atomic.Int64
	sem    chan struct{}
}

// served is the set of connections one Serve accepted: a session's proxy
// serves one listener per call, and the end of one call closes its own
// connections, never another call's.
type served struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// New returns a proxy with opts' defaults filled in.
func New(opts Options) *Proxy {
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 64
	}
	if opts.MaxSessionConns <= 0 {
		opts.MaxSessionConns = 1024
	}
	if opts.RefusalsInFull <= 0 {
		opts.RefusalsInFull = 32
	}
	if opts.LocalAddrs == nil {
		opts.LocalAddrs = interfaceAddrs
	}
	if opts.HandshakeTimeout <= 0 {
		opts.HandshakeTimeout = 10 * time.Second
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 10 * time.Second
	}
	if opts.Dial == nil {
		d := &net.Dialer{Timeout: opts.DialTimeout}
		opts.Dial = d.DialContext
	}
	return &Proxy{opts: opts, sem: make(chan struct{}, opts.MaxSessionConns)}
}

// Active is the number of client connections being served now.
func (p *Proxy) Active() int { return int(p.active.Load()) }

// Serve accepts clients on ln until ctx ends or ln fails, then closes ln
// and every connection it accepted and returns. It returns nil when ctx
// ended it. Serve may run on several listeners at once (one per call of a
// session): each has its own MaxConns bound, and they share the
// MaxSessionConns bound.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	var wg sync.WaitGroup
	own := make(chan struct{}, p.opts.MaxConns)
	release := func() { <-p.sem; <-own }
	lim := &refusals{inFull: p.opts.RefusalsInFull}
	ctx = context.WithValue(ctx, refusalsKey{}, lim)
	// After every connection is done (wg.Wait runs first): the refusals
	// counted and not yet recorded.
	defer func() {
		if p.opts.Record != nil {
			for _, ev := range lim.drain(callIDOf(ctx)) {
				p.opts.Record(ev)
			}
		}
	}()
	set := &served{conns: map[net.Conn]struct{}{}}
	stop := context.AfterFunc(ctx, func() {
		_ = ln.Close()
		set.mu.Lock()
		for c := range set.conns {
			_ = c.Close()
		}
		set.conns = nil
		set.mu.Unlock()
	})
	defer stop()
	defer wg.Wait()
	for {
		// The slots are taken before Accept: under a flood the surplus
		// waits in the kernel's queue, not in goroutines here. The call's
		// own slot first, so a call at its maximum holds no session slot
		// while it waits.
		select {
		case own <- struct{}{}:
		case <-ctx.Done():
			_ = ln.Close()
			return nil
		}
		select {
		case p.sem <- struct{}{}:
		case <-ctx.Done():
			<-own
			_ = ln.Close()
			return nil
		}
		c, err := ln.Accept()
		if err != nil {
			release()
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		if !p.track(set, c) {
			_ = c.Close()
			release()
			return nil
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer release()
			defer p.untrack(set, c)
			p.serveConn(ctx, c)
		}()
	}
}

func (p *Proxy) track(set *served, c net.Conn) bool {
	set.mu.Lock()
	defer set.mu.Unlock()
	if set.conns == nil {
		return false
	}
	set.conns[c] = struct{}{}
	p.active.Add(1)
	return true
}

func (p *Proxy) untrack(set *served, c net.Conn) {
	_ = c.Close()
	set.mu.Lock()
	delete(set.conns, c)
	set.mu.Unlock()
	p.active.Add(-1)
}

type callIDKey struct{}

// WithCallID returns a context whose Serve attributes every connection to
// one call: a bridge serves one command's listener with it.
func WithCallID(ctx context.Context, callID string) context.Context {
	return context.WithValue(ctx, callIDKey{}, callID)
}

func callIDOf(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

// serveConn tells SOCKS5 (first byte 5) from HTTP and serves the client.
func (p *Proxy) serveConn(ctx context.Context, c net.Conn) {
	id := p.nextID.Add(1)
	_ = c.SetReadDeadline(time.Now().Add(p.opts.HandshakeTimeout))
	br := newBufConn(c)
	first, err := br.r.Peek(1)
	if err != nil {
		return
	}
	if first[0] == 5 {
		p.serveSOCKS5(ctx, id, br)
		return
	}
	p.serveHTTP(ctx, id, br)
}

// record hands ev to Options.Record; a refusal past the call's first
// Options.RefusalsInFull is counted instead (refusals.go).
func (p *Proxy) record(ctx context.Context, ev Event) {
	if p.opts.Record == nil {
		return
	}
	if lim, _ := ctx.Value(refusalsKey{}).(*refusals); lim != nil && !ev.Allowed {
		summary := lim.admit(ev)
		if summary == nil {
			return
		}
		ev = *summary
	}
	p.opts.Record(ev)
}
