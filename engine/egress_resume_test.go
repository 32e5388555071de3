package engine_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/permissions"
)

// hostCounter is a real HTTP server that counts the requests it got by
// the host the client named.
type hostCounter struct {
	mu   sync.Mutex
	hits map[string]int
}

func (h *hostCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.hits[strings.Split(r.Host, ":")[0]]++
	h.mu.Unlock()
	_, _ = w.Write([]byte("reached"))
}

func (h *hostCounter) count(host string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[host]
}

// urlsFor is a plain http URL for each host at port.
func urlsFor(port string, hosts []string) []string {
	var urls []string
	for _, h := range hosts {
		urls = append(urls, "http://"+net.JoinHostPort(h, port)+"/")
	}
	return urls
}

// fetchThrough sends a plain GET for each host (at port) through a call's
// bridge of s on a real listener and returns whether each reached the
// server (2xx).
func fetchThrough(t *testing.T, s *engine.Session, port string, hosts ...string) []bool {
	t.Helper()
	plan := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, Egress: true}
	br := s.BridgeFor("turn-9", events.ExecStarted{CallID: "c9", Argv: []string{"curl"}, Cwd: "/w", Sandbox: plan})
	var got []bool
	for _, code := range getThrough(t, br, urlsFor(port, hosts)...) {
		got = append(got, code/100 == 2)
	}
	return got
}

// TestAResumedSessionServesTheRecordedNetworkRules: the egress proxy of
// a resumed session follows the network rules the journal recorded, for
// the profile the session started under (session_started) and for one
// it switched to (policy_changed): the allowed host is reached, the
// denied one and one no rule covers (asked, and denied) are refused,
// whether the resuming configuration names no proxy, another profile
// that allows them all, or the same profile with its rules widened since.
// The allowed host is localhost, which the real resolver finds when no
// configuration lends the test's; the others resolve to the server only
// through a configuration's resolver, so widening would show.
func TestAResumedSessionServesTheRecordedNetworkRules(t *testing.T) {
	srv := &hostCounter{hits: map[string]int{}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(ts.URL, "http://"))

	recorded := permissions.Network{Enabled: true, Mode: permissions.ModeLimited, Domains: []permissions.DomainRule{
		{Host: "denied.test", Action: permissions.Deny, Key: "permissions.q.network.domains.denied.test"},
		{Host: "localhost", Action: permissions.Allow, Key: "permissions.q.network.domains.localhost"}}}
	wide := permissions.Network{Enabled: true, Mode: permissions.ModeFull, Domains: []permissions.DomainRule{
		{Host: "asked.test", Action: permissions.Allow}, {Host: "denied.test", Action: permissions.Allow}, {Host: "localhost", Action: permissions.Allow}}}
	egressPlan := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, Egress: true}

	for _, how := range []string{"started under the profile", "switched to the profile"} {
		for _, rc := range []struct {
			name   string
			egress *engine.Egress
		}{
			{"resumed naming no profile", nil},
			{"resumed under another profile allowing everything", &engine.Egress{Profile: "wide", Network: wide, Resolver: loopbackNames{}}},
			{"resumed with the profile's rules widened since", &engine.Egress{Profile: "q", Network: wide, Resolver: loopbackNames{}}},
		} {
			t.Run(how+"/"+rc.name, func(t *testing.T) {
				sm, err := script.Parse("s.jsonl", []byte(`{"output":[{"type":"message","content":"ok"}]}`))
				if err != nil {
					t.Fatal(err)
				}
				cfg := engine.Config{SessionID: "01a213dd-3096-70c1-ad19-4f6160183b51", Cwd: t.TempDir(),
					Session: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"},
					Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite},
					Model:   sm, Approver: &netApprover{decide: answer(events.Denied)}, Runner: &enginetest.FakeRunner{}}
				eg := &engine.Egress{Network: recorded, Profile: "q", Resolver: loopbackNames{}}
				log := &enginetest.MemLog{}
				if how == "started under the profile" {
					cfg.Plan, cfg.Egress = egressPlan, eg
					if _, err := engine.Start(cfg, log); err != nil {
						t.Fatal(err)
					}
				} else {
					s, err := engine.Start(cfg, log)
					if err != nil {
						t.Fatal(err)
					}
					ch := events.PermissionsChange{Profile: "q", Previous: ":workspace", SandboxMode: "workspace-write", Plan: egressPlan}
					if err := s.SetPermissions(ch, eg, events.SourceUser); err != nil {
						t.Fatal(err)
					}
				}
				if !recordsRules(t, log.Records(), "q", "denied.test", "localhost") {
					t.Fatal("the journal does not record the profile's network rules")
				}

				// The resuming configuration is the other profile's, with a
				// plan of its own that Restore leaves to the journal.
				rcfg := cfg
				rcfg.Plan, rcfg.Egress = events.SandboxPlan{}, rc.egress
				appr := &netApprover{decide: answer(events.Denied)}
				rcfg.Approver = appr
				resumed, err := engine.Restore(rcfg, log, log.Records())
				if err != nil {
					t.Fatal(err)
				}
				before := srv.count("localhost")
				got := fetchThrough(t, resumed, port, "localhost", "denied.test", "asked.test")
				if !got[0] || srv.count("localhost") != before+1 {
					t.Errorf("the allowed host was not reached: %v", got)
				}
				if got[1] || got[2] || srv.count("denied.test") != 0 || srv.count("asked.test") != 0 {
					t.Errorf("the resumed proxy reached a host the recorded rules do not allow: %v (server saw %v)", got, srv.hits)
				}
				if len(appr.asked) != 1 || appr.asked[0].Network == nil || appr.asked[0].Network.Host != "asked.test" || appr.asked[0].Network.Profile != "q" {
					t.Errorf("asked %+v, want one question about asked.test under q", appr.asked)
				}
			})
		}
	}
}

// recordsRules reports whether records hold profile's network rules
// naming each host.
func recordsRules(t *testing.T, records []events.Record, profile string, hosts ...string) bool {
	t.Helper()
	for _, r := range records {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		var n *events.NetworkRules
		switch v := b.(type) {
		case *events.SessionStarted:
			n = v.Network
		case *events.PolicyChanged:
			if v.Permissions != nil {
				n = v.Permissions.Network
			}
		}
		if n == nil || n.Profile != profile || len(n.Domains) != len(hosts) {
			continue
		}
		ok := true
		for i, h := range hosts {
			ok = ok && n.Domains[i].Host == h
		}
		if ok {
			return true
		}
	}
	return false
}

// TestRecordedNetworkRulesOfOlderAndBadJournals: a switch recorded
// before the rules were (no Network) still restores, its proxy following
// a configuration that names the profile and none otherwise, as before;
// recorded rules that no proxy can serve are refused, naming the profile
// and the value, before anything is journaled.
func TestRecordedNetworkRulesOfOlderAndBadJournals(t *testing.T) {
	sm, err := script.Parse("s.jsonl", []byte(`{"output":[{"type":"message","content":"ok"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{SessionID: "01a213dd-3096-70c1-ad19-4f6160183b52", Cwd: t.TempDir(),
		Session: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"},
		Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite},
		Model:   sm, Approver: &netApprover{decide: answer(events.Denied)}, Runner: &enginetest.FakeRunner{}}
	log := &enginetest.MemLog{}
	s, err := engine.Start(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	egressPlan := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, Egress: true}
	bad := events.PermissionsChange{Profile: "q", SandboxMode: "workspace-write", Plan: egressPlan,
		Network: &events.NetworkRules{Profile: "q", Enabled: true, Mode: "wide-open"}}
	n := len(log.Records())
	err = s.ReplayPolicyChange(events.PolicyChanged{ApprovalPolicy: "on-request", Source: events.SourceUser, Permissions: &bad})
	if err == nil || !strings.Contains(err.Error(), "profile q") || !strings.Contains(err.Error(), "wide-open") {
		t.Fatalf("recorded rules with mode wide-open: %v, want an error naming the profile and the mode", err)
	}
	if len(log.Records()) != n {
		t.Fatal("the refused switch was journaled")
	}
	badAction := bad
	badAction.Network = &events.NetworkRules{Profile: "q", Enabled: true, Mode: "full", Domains: []events.DomainRule{{Host: "x.test", Action: "maybe"}}}
	if err := s.ReplayPolicyChange(events.PolicyChanged{ApprovalPolicy: "on-request", Source: events.SourceUser, Permissions: &badAction}); err == nil ||
		!strings.Contains(err.Error(), "x.test") || !strings.Contains(err.Error(), "maybe") {
		t.Fatalf("recorded domain action maybe: %v, want an error naming the domain and the action", err)
	}

	old := events.PermissionsChange{Profile: "q", Previous: ":workspace", SandboxMode: "workspace-write", Plan: egressPlan}
	if err := s.ReplayPolicyChange(events.PolicyChanged{ApprovalPolicy: "on-request", Source: events.SourceUser, Permissions: &old}); err != nil {
		t.Fatal(err)
	}
	start := events.ExecStarted{CallID: "c1", Argv: []string{"curl"}, Cwd: "/w", Sandbox: egressPlan}
	for _, tc := range []struct {
		name   string
		egress *engine.Egress
		bridge bool
	}{
		{"configuration naming the profile", &engine.Egress{Network: permissions.Network{Enabled: true}, Profile: "q"}, true},
		{"configuration naming another", &engine.Egress{Network: permissions.Network{Enabled: true}, Profile: "other"}, false},
		{"no configured proxy", nil, false},
	} {
		rc := cfg
		rc.Egress = tc.egress
		resumed, err := engine.Restore(rc, &enginetest.MemLog{}, log.Records())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := resumed.BridgeFor("turn-2", start) != nil; got != tc.bridge {
			t.Errorf("an older journal resumed with a %s: bridge %v, want %v", tc.name, got, tc.bridge)
		}
	}
}

// TestASubagentGetsTheProxyRulesInForce: a subagent spawned after a
// /permissions switch to a network profile runs its own proxy by that
// profile's rules (its session_started records them), not by the
// configuration the parent started with, which had no proxy.
func TestASubagentGetsTheProxyRulesInForce(t *testing.T) {
	t.Parallel()
	lines := strings.Join([]string{
		`{"output":[{"type":"function_call","call_id":"p1","name":"spawn_agent","arguments":{"prompt":"a","name":"a"}}]}`,
		`{"output":[{"type":"message","content":"done"}]}`,
		`{"agent":"a","output":[{"type":"message","content":"a done"}]}`,
	}, "\n")
	sm, err := script.Parse("egress.jsonl", []byte(lines))
	if err != nil {
		t.Fatal(err)
	}
	host := &memHost{logs: map[string]*enginetest.MemLog{}, script: sm}
	s, err := engine.Start(engine.Config{SessionID: "01a213dd-3096-70c1-ad19-4f6160183b53", Cwd: t.TempDir(),
		Session: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write"},
		Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite},
		Model:   sm, Approver: &netApprover{decide: answer(events.Denied)}, Runner: &enginetest.FakeRunner{}, Agents: host,
		Tools: []engine.Tool{engine.ShellTool{}, engine.SpawnAgentTool{}}}, &enginetest.MemLog{})
	if err != nil {
		t.Fatal(err)
	}
	eg := &engine.Egress{Profile: "q", Network: permissions.Network{Enabled: true, Mode: permissions.ModeLimited,
		Domains: []permissions.DomainRule{{Host: "localhost", Action: permissions.Allow}}}}
	ch := events.PermissionsChange{Profile: "q", Previous: ":workspace", SandboxMode: "workspace-write",
		Plan: events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, Egress: true}}
	if err := s.SetPermissions(ch, eg, events.SourceUser); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Turn(context.Background(), "go"); err != nil || res.Status != events.TurnCompleted {
		t.Fatalf("%+v %v", res, err)
	}
	recs := host.child(t, "a")
	if !recordsRules(t, recs[:1], "q", "localhost") {
		b, _ := recs[0].Decode()
		t.Errorf("the child's session_started does not record q's rules: %+v", b.(*events.SessionStarted).Network)
	}
}
