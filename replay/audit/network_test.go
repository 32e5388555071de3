package audit

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

const ghKey = `permissions.dev.network.domains."api.github.com"`

// networkSession writes a session whose sandboxed calls went through the
// egress proxy under the profile "dev": a host a profile rule allows, a
// host the user allowed once, an IP literal the proxy refused, a host
// allowed always and reused on the session grant, and, after /approvals
// never, a host nobody could be asked about.
func networkSession(tb testing.TB) string {
	w := newWriter(tb, "0199a1b2-0000-7000-8000-00000000f001", events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"})
	w.add("", events.UserTurn{TurnID: "turn-1", Text: "fetch things"})
	run := func(id string, argv []string, net func()) {
		w.response("turn-1", 1, shellItem(id, map[string]any{"command": argv}))
		w.tr(id, states.WantsApproval, states.RunSandboxed, states.CausePolicySkip, "no approval needed")
		w.start(id, 1, "shell", argv, wsPlan)
		net()
		w.outcome(id, 1, 0, fsLayers, nil)
		w.tr(id, states.Sandboxed, states.Finish, states.CauseCompleted, "exit 0")
		w.output(id, true)
	}
	run("n1", []string{"curl", "-s", "https://api.github.com/zen"}, func() {
		w.add("n1", events.NetworkConnection{CallID: "n1", Conn: 1, Protocol: "http-connect", Host: "api.github.com", Port: 443,
			Allowed: true, Rule: ghKey, Addr: "140.82.121.6:443", SNI: "api.github.com"})
	})
	run("n2", []string{"sh", "-c", "curl -s http://example.org/ && curl -s http://10.0.0.1/"}, func() {
		w.durable("n2", events.NetworkDecision{CallID: "n2", Conn: 2, Host: "example.org", Port: 80, Protocol: "http", Method: "GET",
			Answer: events.NetworkAllowOnce, Source: events.SourceUser, Profile: "dev"})
		w.add("n2", events.NetworkConnection{CallID: "n2", Conn: 2, Protocol: "http", Method: "GET", Host: "example.org", Port: 80,
			Allowed: true, Rule: "user: allowed once", Addr: "93.184.215.14:80"})
		w.add("n2", events.NetworkConnection{CallID: "n2", Conn: 3, Protocol: "http", Method: "GET", Host: "10.0.0.1", Port: 80,
			Rule: "an IP address, not a name: rules are by name"})
	})
	run("n3", []string{"pip", "install", "left-pad"}, func() {
		w.durable("n3", events.NetworkDecision{CallID: "n3", Conn: 4, Host: "pypi.org", Port: 443, Protocol: "http-connect",
			Answer: events.NetworkAllowAlways, Source: events.SourceUser, Profile: "dev", RuleWritten: `permissions.dev.network.domains."pypi.org"`})
		w.add("n3", events.NetworkConnection{CallID: "n3", Conn: 4, Protocol: "http-connect", Host: "pypi.org", Port: 443,
			Allowed: true, Rule: "user: allow_always", Addr: "151.101.0.223:443", SNI: "pypi.org"})
		w.add("n3", events.NetworkConnection{CallID: "n3", Conn: 5, Protocol: "http-connect", Host: "pypi.org", Port: 443,
			Allowed: true, Rule: "user: allowed for the session", Addr: "151.101.0.223:443", SNI: "pypi.org"})
		w.add("n3", events.NetworkConnection{CallID: "n3", Conn: 6, Protocol: "http-connect", Host: "files.pythonhosted.org", Port: 443,
			Rule: "the TLS server name evil.example differs from the CONNECT host", SNI: "evil.example"})
	})
	w.durable("", events.PolicyChanged{ApprovalPolicy: "never", Previous: "on-request", Source: events.SourceUser})
	run("n4", []string{"wget", "https://unknown.example/x"}, func() {
		w.durable("n4", events.NetworkDecision{CallID: "n4", Conn: 7, Host: "unknown.example", Port: 443, Protocol: "http-connect",
			Answer: events.NetworkDeny, Source: events.SourceNoAnswer, Profile: "dev"})
		w.add("n4", events.NetworkConnection{CallID: "n4", Conn: 7, Protocol: "http-connect", Host: "unknown.example", Port: 443,
			Rule: "user: denied"})
	})
	w.durable("", events.TurnEnded{TurnID: "turn-1", Status: events.TurnCompleted})
	return w.close()
}

func TestNetworkGoldens(t *testing.T) {
	path := networkSession(t)
	text := func(o Options) func(*bytes.Buffer) Sink {
		return func(b *bytes.Buffer) Sink { return NewTextWriter(b, o) }
	}
	for _, tc := range []struct {
		name   string
		opts   Options
		writer func(*bytes.Buffer) Sink
	}{
		{"network.txt.golden", Options{}, text(Options{})},
		{"network.only.txt.golden", Options{NetworkOnly: true}, text(Options{NetworkOnly: true})},
		{"network.n2.only.txt.golden", Options{NetworkOnly: true, CallID: "n2"}, text(Options{NetworkOnly: true, CallID: "n2"})},
		{"network.json.golden", Options{}, func(b *bytes.Buffer) Sink { return NewJSONWriter(b) }},
		{"network.html.golden", Options{}, func(b *bytes.Buffer) Sink { return NewHTMLWriter(b) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, tc.name, streamed(t, path, tc.opts, tc.writer))
		})
	}
}

// Each network record is attributed to its call and command, and says
// who decided: the profile's rule, the user's answer (once, always, and
// the session grant an always answer left), the proxy's own refusal, and
// the policy never when nobody could be asked.
func TestNetworkEntriesSayWhoDecided(t *testing.T) {
	r, err := Build(networkSession(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		kind, call, host string
		conn             uint64
		allowed          bool
		by               string
	}
	wants := []want{
		{NetworkKindConnection, "n1", "api.github.com", 1, true, ByProfile},
		{NetworkKindDecision, "n2", "example.org", 2, true, ByUserOnce},
		{NetworkKindConnection, "n2", "example.org", 2, true, ByUserOnce},
		{NetworkKindConnection, "n2", "10.0.0.1", 3, false, ByProxy},
		{NetworkKindDecision, "n3", "pypi.org", 4, true, ByUserAlways},
		{NetworkKindConnection, "n3", "pypi.org", 4, true, ByUserAlways},
		{NetworkKindConnection, "n3", "pypi.org", 5, true, ByUserSession},
		{NetworkKindConnection, "n3", "files.pythonhosted.org", 6, false, ByProxy},
		{NetworkKindDecision, "n4", "unknown.example", 7, false, ByPolicyNever},
		{NetworkKindConnection, "n4", "unknown.example", 7, false, ByPolicyNever},
	}
	if len(r.Network) != len(wants) {
		t.Fatalf("%d network entries, want %d: %+v", len(r.Network), len(wants), r.Network)
	}
	for i, w := range wants {
		e := r.Network[i]
		got := want{e.Kind, e.CallID, e.Host, e.Conn, e.Allowed, e.DecidedBy}
		if got != w {
			t.Errorf("entry %d: %+v, want %+v", i, got, w)
		}
		if len(e.Command) == 0 || e.Command[0] == "" {
			t.Errorf("entry %d has no command", i)
		}
	}
	n3 := callByID(t, r, "n3")
	if len(n3.Network) != 4 || strings.Join(n3.Command, " ") != "pip install left-pad" {
		t.Errorf("call n3: %d network entries under %q, want 4 under pip install left-pad", len(n3.Network), n3.Command)
	}
	if e := r.Network[4]; e.RuleWritten == "" || e.Profile != "dev" {
		t.Errorf("the allow-always decision lost its rule or profile: %+v", e)
	}
}

// --call keeps only that call's network records.
func TestNetworkFollowsTheCallFilter(t *testing.T) {
	r, err := Build(networkSession(t), Options{CallID: "n4"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range r.Network {
		if e.CallID != "n4" {
			t.Errorf("audit of n4 lists %s's network record %d", e.CallID, e.Seq)
		}
	}
	if len(r.Network) != 2 {
		t.Errorf("%d entries for n4, want its decision and connection", len(r.Network))
	}
}

// The JSON and HTML renderings parse, and the page lists every record.
func TestNetworkRenderingsParse(t *testing.T) {
	path := networkSession(t)
	js := streamed(t, path, Options{}, func(b *bytes.Buffer) Sink { return NewJSONWriter(b) })
	var rep Report
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatalf("audit --json with network records: %v", err)
	}
	if len(rep.Network) != 10 {
		t.Errorf("JSON network: %d entries, want 10", len(rep.Network))
	}
	page := streamed(t, path, Options{}, func(b *bytes.Buffer) Sink { return NewHTMLWriter(b) })
	d := xml.NewDecoder(bytes.NewReader(page))
	rows := 0
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "tr" {
			for _, a := range se.Attr {
				if a.Name.Local == "data-seq" {
					rows++
				}
			}
		}
	}
	if rows != 10 {
		t.Errorf("HTML network table: %d rows, want 10", rows)
	}
}

// A decision whose answer is none of the recorded answers (a damaged
// journal) is not shown as allowed while its "decided by" says denied.
func TestNetworkDecisionUnknownAnswerIsNotAllowed(t *testing.T) {
	for a, want := range map[events.NetworkAnswer]bool{events.NetworkAllowOnce: true, events.NetworkAllowSession: true,
		events.NetworkAllowAlways: true, events.NetworkDeny: false, "": false, "allow_forever": false} {
		if got := answerAllows(a); got != want {
			t.Errorf("answerAllows(%q) = %v, want %v", a, got, want)
		}
		if by := decisionBy(&events.NetworkDecision{Answer: a, Source: events.SourceUser}, ""); !want && by != ByUserDeny {
			t.Errorf("answer %q: decided by %q, want %q to match the verdict", a, by, ByUserDeny)
		}
	}
}

// A summary of refusals (the proxy counts a call's refusals past its
// first ones) counts as the refusals it stands for in the totals, and its
// line says how many, for a host and for the other hosts together.
func TestRefusalSummariesCountAsTheirRefusals(t *testing.T) {
	w := newWriter(t, "0199a1b2-0000-7000-8000-00000000f002", events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"})
	w.add("", events.UserTurn{TurnID: "turn-1", Text: "loop"})
	argv := []string{"sh", "-c", "while :; do curl -s https://denied.test/; done"}
	w.response("turn-1", 1, shellItem("r1", map[string]any{"command": argv}))
	w.tr("r1", states.WantsApproval, states.RunSandboxed, states.CausePolicySkip, "no approval needed")
	w.start("r1", 1, "shell", argv, wsPlan)
	w.add("r1", events.NetworkConnection{CallID: "r1", Conn: 1, Protocol: "http-connect", Host: "denied.test", Port: 443,
		Rule: "permissions.dev.network.domains.\"denied.test\""})
	w.add("r1", events.NetworkConnection{CallID: "r1", Protocol: "http-connect", Host: "denied.test", Port: 443, Refusals: 1000,
		Rule: "1000 refusal(s) of denied.test counted, not recorded one by one (a call's first 32 refusals are); the last: denied"})
	w.add("r1", events.NetworkConnection{CallID: "r1", Protocol: "http-connect", Refusals: 7,
		Rule: "7 refusal(s) of other hosts counted, not recorded one by one (a call's first 32 refusals are); the last: denied"})
	w.outcome("r1", 1, 0, fsLayers, nil)
	w.tr("r1", states.Sandboxed, states.Finish, states.CauseCompleted, "exit 0")
	w.output("r1", true)
	w.durable("", events.TurnEnded{TurnID: "turn-1", Status: events.TurnCompleted})
	path := w.close()

	r, err := Build(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if allowed, refused := ConnectionCounts(r.Network); allowed != 0 || refused != 1008 {
		t.Errorf("ConnectionCounts = %d allowed, %d refused; want 0 and 1008 (1 + 1000 + 7)", allowed, refused)
	}
	out := string(streamed(t, path, Options{NetworkOnly: true}, func(b *bytes.Buffer) Sink { return NewTextWriter(b, Options{NetworkOnly: true}) }))
	for _, want := range []string{
		"network: 0 connection(s) allowed, 1008 refused",
		"refused denied.test:443 1000 times (http-connect)",
		"refused other hosts 7 times (http-connect)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit --network lacks %q:\n%s", want, out)
		}
	}
}
