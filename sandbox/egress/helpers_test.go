package egress

import (
	"context"

	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docket-engine/docket/states/permissions"
)

// names is the tests' DNS: a fixed table standing in for the resolver the
// proxy would ask, so names can lead to the loopback servers.
type names map[string][]netip.Addr

func (n names) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := n[host]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

var loop = []netip.Addr{netip.MustParseAddr("127.0.0.1")}

// public is a public address standing for a host on the internet (a
// documentation address is not public: the proxy refuses it); dialPublic
// carries it to loopback, where the real test servers listen, and fails
// every other non-loopback address, so nothing leaves the machine.
var public = netip.MustParseAddr("1.1.1.10")

func dialPublic(ctx context.Context, network, addr string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, err
	}
	switch ap.Addr() {
	case public:
		ap = netip.AddrPortFrom(loop[0], ap.Port())
	case loop[0]:
	default:
		return nil, fmt.Errorf("test network: no route to %s", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, ap.String())
}

// testNames resolves every test name to loopback, and one to a public
// address and loopback both (a rebinding name).
func testNames() names {
	n := names{}
	for _, h := range []string{"allowed.test", "denied.test", "a.wild.test", "other.test", "xn--bcher-kva.test"} {
		n[h] = loop
	}
	n["ask.test"] = []netip.Addr{public}
	n["rebind.test"] = []netip.Addr{loop[0], public}
	return n
}

// recorder keeps the proxy's events.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) record(ev Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

func (r *recorder) all() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// last waits for the n-th event: a refusal is recorded as the client is
// answered, so it may land just after the client returns.
func (r *recorder) nth(t *testing.T, n int) Event {
	t.Helper()
	for i := 0; i < 500; i++ {
		if ev := r.all(); len(ev) >= n {
			return ev[n-1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no event %d; have %+v", n, r.all())
	return Event{}
}

// asker answers every question with one answer and counts them.
type asker struct {
	answer Answer
	asked  atomic.Int32
}

func (a *asker) Ask(context.Context, Request) (Answer, error) {
	a.asked.Add(1)
	return a.answer, nil
}

func testNetwork(t testing.TB, mode string) *permissions.Network {
	t.Helper()
	on := true
	r, err := permissions.Resolve("p", map[string]permissions.Profile{"p": {Network: &permissions.NetworkTable{Enabled: &on, Mode: mode, Domains: map[string]string{
		"allowed.test": "allow", "*.wild.test": "allow", "denied.test": "deny", "bücher.test": "allow",
	}}}}, permissions.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return &r.Network
}

type harness struct {
	proxy *Proxy
	url   *url.URL
	addr  string
	rec   *recorder
	ask   *asker
}

// startProxy runs a proxy on loopback for the test's lifetime.
func startProxy(t testing.TB, mode string, tweak func(*Options)) *harness {
	t.Helper()
	h := &harness{rec: &recorder{}, ask: &asker{answer: DenyHost}}
	network := testNetwork(t, mode)
	opts := Options{
		Decider:  &ProfileDecider{Network: network, Asker: h.ask},
		Record:   h.rec.record,
		Resolver: testNames(),
		Dial:     dialPublic,
		Limited:  network.Mode == permissions.ModeLimited,
	}
	if tweak != nil {
		tweak(&opts)
	}
	h.proxy = New(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(WithCallID(context.Background(), "call_1"))
	done := make(chan error, 1)
	go func() { done <- h.proxy.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	h.addr = ln.Addr().String()
	h.url = &url.URL{Scheme: "http", Host: h.addr}
	return h
}

// client is an http.Client that goes through the proxy.
func (h *harness) client() *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(h.url), DisableKeepAlives: true}, Timeout: 30 * time.Second}
}

// upstream is a loopback HTTP server that says which Host it was asked for.
func upstream(t testing.TB) (*httptest.Server, string, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintf(w, "host=%s method=%s", r.Host, r.Method)
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return srv, port, &hits
}

func get(c *http.Client, u string) (int, string, error) {
	resp, err := c.Get(u)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, b.String(), nil
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
