package egress

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
)

// selfAddrChild marks the copy of the test run inside a network
// namespace of its own (where it may give an interface a public address).
const selfAddrChild = "DOCKET_EGRESS_SELF_ADDR_CHILD"

// selfAddr is the public address the namespace's loopback interface gets,
// as a laptop's interface gets a global IPv6 address from its router.
var selfAddr = netip.MustParseAddr("9.9.9.9")

// TestANameResolvingToThisHostsOwnPublicAddressIsRefused: on a host whose
// interface has a public address, a name resolving to that address
// reaches the host's own services bound to every address, as loopback
// does. A person's allow of the name does not open it; only an exact
// allow rule would. The test runs in a network namespace of its own (a
// copy of the test binary under `unshare -rn`), whose loopback interface
// gets a public address, with the proxy and a server bound to 0.0.0.0 in
// it: real sockets, a real interface address, the real list of them.
func TestANameResolvingToThisHostsOwnPublicAddressIsRefused(t *testing.T) {
	if os.Getenv(selfAddrChild) == "" {
		if err := exec.Command("unshare", "-rn", "true").Run(); err != nil {
			t.Skipf("no network namespace of the test's own (unshare -rn: %v)", err)
		}
		cmd := exec.Command("unshare", "-rn", os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), selfAddrChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
			t.Fatalf("in a network namespace of its own: %v\n%s", err, out)
		}
		return
	}
	for _, args := range [][]string{{"link", "set", "lo", "up"}, {"addr", "add", selfAddr.String() + "/32", "dev", "lo"}} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v %s", args, err, out)
		}
	}
	var hits atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "the host's own service")
	}))
	ln, err := net.Listen("tcp", "0.0.0.0:0") // every address, as a development server binds
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if classify(selfAddr) != classPublic {
		t.Fatalf("%s is classed %s: the test needs a public address", selfAddr, classify(selfAddr))
	}
	var d net.Dialer
	dialer := func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
	n := names{"self.test": {selfAddr}}
	u := "http://self.test:" + port + "/"

	// The attack: without the host's addresses known, the person's allow
	// lets the name through to the host's own service.
	blind := startProxy(t, "full", func(o *Options) {
		o.Resolver, o.Dial = n, dialer
		o.LocalAddrs = func() ([]netip.Addr, error) { return nil, nil }
	})
	blind.ask.answer = AllowSession
	if code, body, err := get(blind.client(), u); err != nil || code != http.StatusOK || hits.Load() != 1 {
		t.Fatalf("without the host's addresses, GET %s: %d %q %v (hits %d); the attack should reach the service", u, code, body, err, hits.Load())
	}

	h := startProxy(t, "full", func(o *Options) { o.Resolver, o.Dial = n, dialer })
	h.ask.answer = AllowSession
	code, body, err := get(h.client(), u)
	if err != nil || code != http.StatusForbidden {
		t.Fatalf("GET %s with the person's allow: %d %q %v, want 403", u, code, body, err)
	}
	ev := h.rec.nth(t, 1)
	if ev.Allowed || !strings.Contains(ev.Rule, selfAddr.String()+" this host") {
		t.Fatalf("event %+v, want a refusal naming %s as this host", ev, selfAddr)
	}
	// Carried inside a NAT64 address, it is the host's too.
	if !newHostAddrs([]netip.Addr{selfAddr}).reaches(netip.MustParseAddr("64:ff9b::909:909")) {
		t.Fatal("64:ff9b::9.9.9.9 is not seen to reach the host at 9.9.9.9")
	}
	if hits.Load() != 1 {
		t.Fatalf("the host's own service was reached %d times, want only the attack's 1", hits.Load())
	}
}
