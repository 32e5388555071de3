package egress

import (
	"net"
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
	// Wait until the proxy took as many as it will; it must never take more.
	for i := 0; i < 200 && h.proxy.Active() < max; i++ {
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
	h := startProxy(t, "full", func(o *Options) { o.MaxConns = 1; o.HandshakeTimeout = 50 * time.Millisecond })
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
