package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/docket-engine/docket/cmd/docket/internal/render"
	"github.com/docket-engine/docket/cmd/docket/internal/render/jsonlschema"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/sandbox/egress"
	"github.com/docket-engine/docket/states"
	"github.com/docket-engine/docket/states/permissions"
)

const proxiedSessionID = "0199b0c0-0000-7000-8000-0000000000e2"

// testResolver resolves the test's names: allowed.test and blocked.test
// to loopback, ask.test to a documentation address (a host on the
// internet) that proxyDial carries to loopback.
type testResolver map[string]netip.Addr

func (r testResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return []netip.Addr{a}, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

var testPublic = netip.MustParseAddr("192.0.2.10")

func proxyDial(ctx context.Context, network, addr string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, err
	}
	if ap.Addr() == testPublic {
		ap = netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), ap.Port())
	}
	var d net.Dialer
	return d.DialContext(ctx, network, ap.String())
}

// personSays answers every network question the same way.
type personSays egress.Answer

func (p personSays) Ask(context.Context, egress.Request) (egress.Answer, error) {
	return egress.Answer(p), nil
}

// countingObserver passes notices on and signals each network one.
type countingObserver struct {
	next engine.Observer
	seen chan struct{}
}

func (c *countingObserver) Notify(n engine.Notice) {
	c.next.Notify(n)
	if n.Type == engine.NoticeNetwork {
		c.seen <- struct{}{}
	}
}

// A real egress proxy journals into a real session journal through the
// noticing journal: exec --json --json-extensions shows each decision
// and connection as it happens (Codex's stream shows none), and the
// audit of the journal lists the same records with who decided.
func TestProxiedRecordsReachTheStreamAndTheAudit(t *testing.T) {
	t.Parallel()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello from ", r.Host) }))
	defer upstream.Close()
	_, port, _ := net.SplitHostPort(upstream.Listener.Addr().String())

	home := t.TempDir()
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	j, err := journal.Create(home, proxiedSessionID, start)
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return start.Add(time.Minute) }
	argv := []string{"sh", "-c", "curl allowed.test; curl ask.test; curl blocked.test"}
	plan := events.SandboxPlan{Mode: "workspace-write", WritableRoots: []string{"/w"}, Egress: true}
	for _, rec := range []struct {
		call string
		body any
	}{
		{"", events.SessionStarted{Version: events.FormatVersion, SessionID: proxiedSessionID, Cwd: "/w",
			Config: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}, Plan: plan}},
		{"", events.ModelResponse{TurnID: "turn-1", Request: 1, Items: []events.Item{{Type: events.ItemFunctionCall, CallID: "k1", Name: "shell",
			Arguments: `{"command":["sh","-c","curl allowed.test; curl ask.test; curl blocked.test"]}`}}}},
		{"k1", events.Transition{CallID: "k1", From: string(states.WantsApproval), Event: string(states.RunSandboxed), To: string(states.Sandboxed),
			Cause: string(states.CausePolicySkip), Reason: "r"}},
		{"k1", events.ExecStarted{CallID: "k1", Attempt: 1, Tool: "shell", Argv: argv, Cwd: "/w", Sandbox: plan}},
	} {
		if _, err := j.AppendDurable(start, rec.call, rec.body); err != nil {
			t.Fatal(err)
		}
	}

	var stream, codexStream bytes.Buffer
	ext := render.NewJSONLWith(&stream, render.JSONLOptions{Extensions: true})
	codex := render.NewJSONL(&codexStream)
	obs := &countingObserver{next: teeObserver{ext, codex}, seen: make(chan struct{}, 16)}
	nj := newNoticingJournal(j, obs, proxiedSessionID)

	on := true
	prof, err := permissions.Resolve("dev", map[string]permissions.Profile{"dev": {Network: &permissions.NetworkTable{Enabled: &on, Mode: "full",
		Domains: map[string]string{"allowed.test": "allow", "blocked.test": "deny"}}}}, permissions.Env{})
	if err != nil {
		t.Fatal(err)
	}
	loop := netip.MustParseAddr("127.0.0.1")
	proxy := egress.New(egress.Options{
		Decider: &egress.ProfileDecider{Network: &prof.Network,
			Asker: &egress.JournalingAsker{Person: personSays(egress.AllowOnce), Journal: nj, Now: now, Profile: "dev"}},
		Record:   egress.RecordTo(nj, now),
		Resolver: testResolver{"allowed.test": loop, "blocked.test": loop, "ask.test": testPublic},
		Dial:     proxyDial,
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(egress.WithCallID(context.Background(), "k1"))
	served := make(chan error, 1)
	go func() { served <- proxy.Serve(ctx, ln) }()
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: ln.Addr().String()}), DisableKeepAlives: true}}
	for _, c := range []struct {
		host string
		want int
	}{{"allowed.test", 200}, {"ask.test", 200}, {"blocked.test", 403}} {
		host, want := c.host, c.want
		resp, err := client.Get("http://" + host + ":" + port + "/")
		if err != nil {
			t.Fatalf("GET %s through the proxy: %v", host, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
	// Three connections and one answer: wait for all four to be shown (a
	// refusal is recorded as the client is answered).
	for range 4 {
		<-obs.seen
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	for _, body := range []any{
		events.ExecOutcome{CallID: "k1", Attempt: 1, Layers: []string{"netns"}},
		events.Transition{CallID: "k1", From: string(states.Sandboxed), Event: string(states.Finish), To: string(states.Done), Cause: string(states.CauseCompleted), Reason: "exit 0"},
		events.ToolOutput{CallID: "k1", Success: true},
	} {
		if _, err := j.Append(now(), "k1", body); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := jsonlschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	counts, err := s.Validate(bytes.NewReader(stream.Bytes()))
	if err != nil {
		t.Fatalf("the extended stream breaks the schema: %v\n%s", err, stream.String())
	}
	if counts[render.EventNetworkConnection] != 3 || counts[render.EventNetworkDecision] != 1 {
		t.Errorf("extended stream: %d connections, %d decisions, want 3 and 1:\n%s", counts[render.EventNetworkConnection], counts[render.EventNetworkDecision], stream.String())
	}
	if strings.Contains(codexStream.String(), "network.") {
		t.Errorf("Codex's stream carries Docket's network events:\n%s", codexStream.String())
	}
	if !strings.Contains(stream.String(), `"host":"blocked.test","port":`+port+`,"protocol":"http","method":"GET","allowed":false`) {
		t.Errorf("the refusal of blocked.test is not in the stream:\n%s", stream.String())
	}

	code, out, errOut := runAuditCLI(t, "audit", "--home", home, "--network", proxiedSessionID)
	if code != 0 {
		t.Fatalf("audit --network: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"allowed allowed.test:" + port + " (http GET, conn 1) by profile rule",
		"asked about ask.test:" + port + " (http GET, conn 2): user: allow once, profile dev",
		"allowed ask.test:" + port + " (http GET, conn 2) by user: allow once",
		"refused blocked.test:" + port + " (http GET, conn 3) by profile rule",
		"call k1  sh -c 'curl allowed.test; curl ask.test; curl blocked.test'",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit --network lacks %q:\n%s", want, out)
		}
	}
}

// teeObserver hands each notice to every observer.
type teeObserver []engine.Observer

func (t teeObserver) Notify(n engine.Notice) {
	for _, o := range t {
		o.Notify(n)
	}
}
