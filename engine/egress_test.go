package engine_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/states/permissions"
)

// loopbackNames resolves every name to loopback: an answer alone never
// lets the proxy connect there, so each request ends refused after the
// question, which is what these tests look at.
type loopbackNames struct{}

func (loopbackNames) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// netApprover answers network questions with decide and keeps them.
type netApprover struct {
	mu     sync.Mutex
	asked  []engine.ApprovalRequest
	decide func(ctx context.Context) (engine.Answer, error)
}

func (a *netApprover) Decide(ctx context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req)
	a.mu.Unlock()
	return a.decide(ctx)
}

func answer(d events.ReviewDecision) func(context.Context) (engine.Answer, error) {
	return func(context.Context) (engine.Answer, error) {
		return engine.Answer{Decision: d, Source: events.SourceFlag}, nil
	}
}

// TestANetworkQuestionGoesToTheSessionsApprover drives a session's proxy
// through a call's bridge on a real listener and checks what the approver
// was asked and what the journal says was answered.
func TestANetworkQuestionGoesToTheSessionsApprover(t *testing.T) {
	cases := []struct {
		name    string
		policy  string
		decide  func(context.Context) (engine.Answer, error)
		persist bool
		// want is the journaled answer and source of each of two requests
		// for the same host; asked how many questions reached the approver.
		want  []events.NetworkAnswer
		src   events.DecisionSource
		asked int
		rule  string
	}{
		{name: "never denies without asking", policy: "never", decide: answer(events.Approved),
			want: []events.NetworkAnswer{events.NetworkDeny, events.NetworkDeny}, src: events.SourceNoAnswer, asked: 0},
		{name: "approved allows once: the next request asks again", policy: "on-request", decide: answer(events.Approved),
			want: []events.NetworkAnswer{events.NetworkAllowOnce, events.NetworkAllowOnce}, src: events.SourceFlag, asked: 2},
		{name: "approved for the session asks once", policy: "on-request", decide: answer(events.ApprovedForSession),
			want: []events.NetworkAnswer{events.NetworkAllowSession}, src: events.SourceFlag, asked: 1},
		{name: "save the rule is always, written", policy: "untrusted", decide: answer(events.ApprovedExecpolicyAmendment), persist: true,
			want: []events.NetworkAnswer{events.NetworkAllowAlways}, src: events.SourceFlag, asked: 1, rule: "permissions.p.network.domains.host.test"},
		{name: "save the rule without a writer stays for the session", policy: "on-request", decide: answer(events.ApprovedExecpolicyAmendment),
			want: []events.NetworkAnswer{events.NetworkAllowSession}, src: events.SourceFlag, asked: 1},
		{name: "denied", policy: "on-request", decide: answer(events.Denied),
			want: []events.NetworkAnswer{events.NetworkDeny, events.NetworkDeny}, src: events.SourceFlag, asked: 2},
		{name: "no answer to give denies as nobody's", policy: "on-request",
			decide: func(context.Context) (engine.Answer, error) { return engine.Answer{}, engine.ErrNoDecision },
			want:   []events.NetworkAnswer{events.NetworkDeny, events.NetworkDeny}, src: events.SourceNoAnswer, asked: 2},
		{name: "no answer in time denies as nobody's", policy: "on-request",
			decide: func(ctx context.Context) (engine.Answer, error) { <-ctx.Done(); return engine.Answer{}, ctx.Err() },
			want:   []events.NetworkAnswer{events.NetworkDeny, events.NetworkDeny}, src: events.SourceNoAnswer, asked: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sm, err := script.Parse("s.jsonl", []byte(`{"output":[{"type":"message","content":"ok"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			appr := &netApprover{decide: tc.decide}
			eg := &engine.Egress{Network: permissions.Network{Enabled: true, Mode: permissions.ModeFull, Socks5: true}, Profile: "p", Resolver: loopbackNames{}}
			if tc.persist {
				eg.Persist = func(host string) (string, func() error, error) {
					return "permissions.p.network.domains." + host, func() error { return nil }, nil
				}
			}
			log := &enginetest.MemLog{}
			s, err := engine.Start(engine.Config{SessionID: "01a213dd-3096-70c1-ad19-4f6160183b4f", Cwd: t.TempDir(),
				Session: events.SessionConfig{ApprovalPolicy: tc.policy, SandboxMode: "workspace-write"},
				Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, Egress: true},
				Model:   sm, Approver: appr, Runner: &enginetest.FakeRunner{}, Egress: eg, ApprovalTimeout: 200 * time.Millisecond}, log)
			if err != nil {
				t.Fatal(err)
			}
			plan := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, Egress: true}
			if s.BridgeFor("turn-1", events.ExecStarted{CallID: "c1", Sandbox: events.SandboxPlan{Mode: events.SandboxWorkspaceWrite}}) != nil {
				t.Fatal("a plan without Egress got a bridge")
			}
			br := s.BridgeFor("turn-1", events.ExecStarted{CallID: "c1", Argv: []string{"curl", "http://host.test/"}, Cwd: "/w", Sandbox: plan})
			for i, code := range getThrough(t, br, "http://host.test/", "http://host.test/") {
				if code/100 == 2 {
					t.Fatalf("request %d went through: %d", i+1, code)
				}
			}

			var got []events.NetworkDecision
			var conns int
			for _, r := range log.Records() {
				b, err := r.Decode()
				if err != nil {
					t.Fatal(err)
				}
				switch v := b.(type) {
				case *events.NetworkDecision:
					if r.CallID != "c1" || v.CallID != "c1" || v.Host != "host.test" || v.Profile != "p" {
						t.Errorf("decision record: %s %+v", r.CallID, v)
					}
					got = append(got, *v)
				case *events.NetworkConnection:
					conns++
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d decisions journaled, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, d := range got {
				if d.Answer != tc.want[i] || d.Source != tc.src || d.RuleWritten != tc.rule {
					t.Errorf("decision %d: %+v, want %s by %s, rule %q", i+1, d, tc.want[i], tc.src, tc.rule)
				}
			}
			if conns != 2 {
				t.Errorf("%d connections journaled, want 2", conns)
			}
			if len(appr.asked) != tc.asked {
				t.Fatalf("the approver was asked %d times, want %d", len(appr.asked), tc.asked)
			}
			for _, q := range appr.asked {
				if q.Kind != events.ApprovalNetwork || q.CallID != "c1" || q.TurnID != "turn-1" || q.Network == nil ||
					q.Network.Host != "host.test" || q.Network.Port != 80 || q.Network.Profile != "p" || len(q.Command) != 2 || q.Cwd != "/w" {
					t.Errorf("the question: %+v %+v", q, q.Network)
				}
			}
		})
	}
}

// askTwice sends two plain HTTP requests for host.test through call c1's
// bridge of s, on a real listener.
func askTwice(t *testing.T, s *engine.Session) {
	t.Helper()
	plan := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, Egress: true}
	br := s.BridgeFor("turn-1", events.ExecStarted{CallID: "c1", Argv: []string{"curl"}, Cwd: "/w", Sandbox: plan})
	getThrough(t, br, "http://host.test/", "http://host.test/")
}

// getThrough serves br on a real loopback listener, sends a plain GET
// for each URL through it as a proxy, and returns each answer's status
// code. The bridge must stop cleanly when its context ends.
func getThrough(t *testing.T, br sandbox.Bridge, urls ...string) []int {
	t.Helper()
	if br == nil {
		t.Fatal("the egress plan has no bridge")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- br.Serve(ctx, ln) }()
	proxy, _ := url.Parse("http://" + ln.Addr().String())
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true}}
	var codes []int
	for _, u := range urls {
		resp, err := client.Get(u)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil && !errors.Is(err, net.ErrClosed) {
		t.Fatalf("serve: %v", err)
	}
	return codes
}

// TestAResumedSessionKeepsItsSessionWideNetworkAnswers: an answer "for
// the session" journaled before a resume still holds after it, and
// nobody is asked again; an answer "once" does not.
func TestAResumedSessionKeepsItsSessionWideNetworkAnswers(t *testing.T) {
	for _, tc := range []struct {
		first events.ReviewDecision
		asked int
	}{{events.ApprovedForSession, 0}, {events.Approved, 2}} {
		t.Run(string(tc.first), func(t *testing.T) {
			sm, err := script.Parse("s.jsonl", []byte(`{"output":[{"type":"message","content":"ok"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			cfg := engine.Config{SessionID: "01a213dd-3096-70c1-ad19-4f6160183b4f", Cwd: t.TempDir(),
				Session: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"},
				Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, Egress: true},
				Model:   sm, Approver: &netApprover{decide: answer(tc.first)}, Runner: &enginetest.FakeRunner{},
				Egress: &engine.Egress{Network: permissions.Network{Enabled: true, Mode: permissions.ModeFull}, Profile: "p", Resolver: loopbackNames{}}}
			log := &enginetest.MemLog{}
			s, err := engine.Start(cfg, log)
			if err != nil {
				t.Fatal(err)
			}
			askTwice(t, s)
			after := &netApprover{decide: answer(events.Denied)}
			cfg.Approver = after
			resumed, err := engine.Restore(cfg, log, log.Records())
			if err != nil {
				t.Fatal(err)
			}
			askTwice(t, resumed)
			if len(after.asked) != tc.asked {
				t.Fatalf("after the resume the approver was asked %d times, want %d", len(after.asked), tc.asked)
			}
		})
	}
}
