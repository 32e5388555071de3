package egress

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"
)

func TestAFloodOfIdleConnectionsIsBounded(t *testing.T) {
	_, port, _ := upstream(t)
	const max = 4
	h := startProxy(t, "full", func(o *Options) { o.MaxConns = max })
	var flood []net.Conn
	for i := 0; i < 10*max; i++ {
		c, err := net.Dial("tcp", h.addr)
		if err != nil {
			t.Fatal(err)
		}
		flood = append(flood, c)
	}
	// Wait until the proxy took as many as it will (bounded generously: a
	// loaded machine is slow to accept); it must never take more.
	for i := 0; i < 1000 && h.proxy.Active() < max; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	for i := 0; i < 20; i++ {
		if n := h.proxy.Active(); n > max {
			t.Fatalf("serving %d connections, bound is %d", n, max)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := h.proxy.Active(); n != max {
		t.Fatalf("serving %d connections under the flood, want the bound %d", n, max)
	}
	for _, c := range flood {
		c.Close()
	}
	// Once the flood is gone a real client gets through.
	if code, _, err := get(h.client(), "http://allowed.test:"+port+"/"); err != nil || code != 200 {
		t.Fatalf("after the flood: %d %v", code, err)
	}
}

func TestASilentClientGivesItsSlotBack(t *testing.T) {
	_, port, _ := upstream(t)
	// The deadline also bounds the real client's own handshake: at 50ms a
	// loaded machine could let it pass before the client's request was
	// read, and the proxy dropped the client the test is about.
	h := startProxy(t, "full", func(o *Options) { o.MaxConns = 1; o.HandshakeTimeout = 2 * time.Second })
	silent, err := net.Dial("tcp", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	// The only slot is held by a client that says nothing; the handshake
	// deadline frees it for the next.
	if code, _, err := get(h.client(), "http://allowed.test:"+port+"/"); err != nil || code != 200 {
		t.Fatalf("behind a silent client: %d %v", code, err)
	}
}

// serveCall serves h's proxy on a listener of its own, attributed to
// callID, for the test's lifetime: another call of the same session.
func serveCall(t *testing.T, h *harness, callID string) *http.Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(WithCallID(context.Background(), callID))
	done := make(chan error, 1)
	go func() { done <- h.proxy.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve %s: %v", callID, err)
		}
	})
	u := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u), DisableKeepAlives: true}, Timeout: 30 * time.Second}
}

// holdIdle opens n connections to addr that say nothing, and waits until
// the proxy serves want connections in all.
func holdIdle(t *testing.T, h *harness, n, want int) {
	t.Helper()
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", h.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
	for i := 0; i < 1000 && h.proxy.Active() < want; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if got := h.proxy.Active(); got != want {
		t.Fatalf("serving %d connections, want %d", got, want)
	}
}

func TestOneCallAtItsMaximumLeavesAnotherCallItsConnections(t *testing.T) {
	_, port, hits := upstream(t)
	const max = 2
	// Idle clients keep their slots for the whole test: the handshake
	// deadline frees none of them.
	h := startProxy(t, "full", func(o *Options) { o.MaxConns = max; o.HandshakeTimeout = 10 * time.Minute })
	holdIdle(t, h, 3*max, max) // call_1 holds its maximum; the rest wait in the kernel's queue
	other := serveCall(t, h, "call_2")
	code, _, err := get(other, "http://allowed.test:"+port+"/")
	if err != nil || code != 200 || hits.Load() != 1 {
		t.Fatalf("call_2 behind call_1's idle connections: %d %v (upstream hits %d)", code, err, hits.Load())
	}
	if ev := h.rec.nth(t, 1); ev.CallID != "call_2" || !ev.Allowed {
		t.Fatalf("event = %+v, want call_2's connection", ev)
	}
	// call_2's connection ends after its response is read (its goroutine
	// untracks it a moment later): wait for that, then call_1 must still
	// hold exactly its maximum.
	for i := 0; i < 1000 && h.proxy.Active() > max; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if got := h.proxy.Active(); got != max {
		t.Fatalf("call_1 is served %d connections after call_2's, want still its %d", got, max)
	}
}

func TestTheSessionBoundHoldsOverAllCalls(t *testing.T) {
	const perCall, session = 3, 4
	h := startProxy(t, "full", func(o *Options) {
		o.MaxConns, o.MaxSessionConns, o.HandshakeTimeout = perCall, session, 10*time.Minute
	})
	holdIdle(t, h, perCall, perCall)
	// call_2's flood gets what the session bound leaves, never more.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(WithCallID(context.Background(), "call_2"))
	done := make(chan error, 1)
	go func() { done <- h.proxy.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()
	for i := 0; i < 3*perCall; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	for i := 0; i < 1000 && h.proxy.Active() < session; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	for i := 0; i < 20; i++ {
		if n := h.proxy.Active(); n != session {
			t.Fatalf("serving %d connections, want the session bound %d", n, session)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
