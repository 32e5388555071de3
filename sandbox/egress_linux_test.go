package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/egress"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
	"github.com/docket-engine/docket/states/permissions"
)

// loopbackNames resolves the test's names to loopback, where its servers
// listen.
type loopbackNames map[string]bool

func (n loopbackNames) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if n[host] {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

// egressProxy is a proxy allowing allowed.test by an exact rule and
// denying denied.test, asking nobody, recording what it decided.
func egressProxy(t *testing.T) (*egress.Proxy, func() []egress.Event) {
	t.Helper()
	on := true
	r, err := permissions.Resolve("p", map[string]permissions.Profile{"p": {Network: &permissions.NetworkTable{Enabled: &on,
		Domains: map[string]string{"allowed.test": "allow", "denied.test": "deny"}}}}, permissions.Env{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var evs []egress.Event
	p := egress.New(egress.Options{
		Decider:  &egress.ProfileDecider{Network: &r.Network},
		Resolver: loopbackNames{"allowed.test": true, "denied.test": true},
		Record:   func(ev egress.Event) { mu.Lock(); evs = append(evs, ev); mu.Unlock() },
	})
	return p, func() []egress.Event { mu.Lock(); defer mu.Unlock(); return append([]egress.Event(nil), evs...) }
}

// egressProbes is what the sandboxed command tries, one line each.
const egressProbes = `
echo "proxied: $(curl -sS --max-time 10 http://allowed.test:$P/ 2>&1)"
echo "socks: $(curl -sS --max-time 10 -x socks5h://127.0.0.1:3128 http://allowed.test:$P/ 2>&1)"
echo "denied: $(curl -sS --max-time 10 http://denied.test:$P/ 2>&1)"
echo "direct: $( (NO_PROXY='*' no_proxy='*' curl -sS --max-time 5 http://127.0.0.1:$P/ 2>&1 || echo FAILED) | tr '\n' ' ')"
echo "ipv6: $( (curl --noproxy '*' -sS --max-time 5 "http://[::1]:$P/" 2>&1 || echo FAILED) | tr '\n' ' ')"
echo "dns: $( ( (echo x > /dev/udp/1.1.1.1/53) 2>&1 || echo FAILED) | tr '\n' ' ')"
echo "other-port: $( (curl --noproxy '*' -sS --max-time 5 http://127.0.0.1:9/ 2>&1 || echo FAILED) | tr '\n' ' ')"
`

func TestEgressBridgeIsTheOnlyWayOut(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	caps := Probe()
	if !caps.UserNamespaces {
		t.Skip("the egress bridge needs user namespaces")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "host=%s", r.Host) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	env := []string{"PATH=/usr/bin:/bin", "P=" + port, "HTTP_PROXY=http://attacker.example:1", "NO_PROXY=*"}

	// Unsandboxed, the command reaches the server directly.
	out := mustRun(t, Request{Argv: []string{"bash", "-c", egressProbes}, Plan: events.SandboxPlan{Mode: ModeNone}, Env: env})
	if !strings.Contains(out.Stdout, "direct: host=127.0.0.1") {
		t.Fatalf("unsandboxed, the direct request should work:\n%s", out.Stdout)
	}

	proxy, events_ := egressProxy(t)
	plan := events.SandboxPlan{Mode: ModeReadOnly, Egress: true}
	out, err := Run(withCallIDForTest(), Request{Argv: []string{"bash", "-c", egressProbes}, Plan: plan, Env: env, Bridge: proxy, Caps: &caps})
	if err != nil {
		t.Fatalf("Run: %v (%s)", err, out.SandboxError)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out.Stdout, "\n") {
		if k, v, ok := strings.Cut(l, ": "); ok {
			lines[k] = v
		}
	}
	want := map[string]string{"proxied": "host=allowed.test", "socks": "host=allowed.test", "denied": "refused",
		"direct": "FAILED", "ipv6": "FAILED", "dns": "FAILED", "other-port": "FAILED"}
	for k, s := range want {
		if !strings.Contains(lines[k], s) {
			t.Errorf("%s: %q, want %q\nstdout:\n%s\nstderr:\n%s", k, lines[k], s, out.Stdout, out.Stderr)
		}
	}
	if !slices.Contains(out.Layers, layers.Egress) || !slices.Contains(out.Layers, layers.NetNS) {
		t.Errorf("layers %v lack %s and %s", out.Layers, layers.Egress, layers.NetNS)
	}
	var allowed, refused int
	for _, ev := range events_() {
		if ev.Allowed {
			allowed++
		} else {
			refused++
		}
	}
	if allowed != 2 || refused != 1 {
		t.Errorf("proxy events: %d allowed, %d refused, want 2 and 1: %+v", allowed, refused, events_())
	}
}

func TestAnEgressPlanWithoutAProxyIsRefused(t *testing.T) {
	_, err := Run(context.Background(), Request{Argv: []string{"true"}, Plan: events.SandboxPlan{Mode: ModeReadOnly, Egress: true}})
	var ue *UnavailableError
	if !errors.As(err, &ue) || !slices.Contains(ue.Missing, layers.Egress) {
		t.Fatalf("err = %v, want the egress bridge missing", err)
	}
}

// withCallIDForTest is the context a session would serve a call's bridge in.
func withCallIDForTest() context.Context { return egress.WithCallID(context.Background(), "call_1") }

func TestTheHelperRefusesABridgeItCannotBuildSafely(t *testing.T) {
	for _, tc := range []struct{ name, spec string }{
		{"no network namespace", `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"read-only","ns":{"user":true},"bridge":true,"bridge_fd":6,"cwd":"/","path":"/bin/true"}`},
		{"the direct network on", `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"read-only","network":true,"ns":{"user":true,"net":true},"bridge":true,"bridge_fd":6,"cwd":"/","path":"/bin/true"}`},
		{"a protocol descriptor", `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"read-only","ns":{"user":true,"net":true},"bridge":true,"bridge_fd":4,"cwd":"/","path":"/bin/true"}`},
		{"a descriptor without a bridge", `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"read-only","ns":{"user":true,"net":true},"bridge_fd":7,"cwd":"/","path":"/bin/true"}`},
	} {
		if _, _, err := proto.Parse([]string{"docket", HelperArg, tc.spec, "--", "true"}); err == nil || !strings.Contains(err.Error(), "bridge") {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
}

// TestALongLivedProcessUnderAnEgressPlanNeedsABridge: Command refuses
// an egress plan without a proxy to serve it, naming the layer, rather
// than start a process with no way out (or the host's network).
func TestALongLivedProcessUnderAnEgressPlanNeedsABridge(t *testing.T) {
	dir := t.TempDir()
	_, err := Command(Request{Argv: []string{"true"}, Cwd: dir, Plan: events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{dir}, Egress: true}})
	var ue *UnavailableError
	if !errors.As(err, &ue) || len(ue.Missing) != 1 || ue.Missing[0] != layers.Egress || !errors.Is(err, errNoBridge) {
		t.Fatalf("err = %v, want the egress layer missing", err)
	}
}
