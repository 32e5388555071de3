package egress

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// A command refused in a loop journals its call's first refusals in full
// and the rest as counts per host, so the journal stays small and still
// says how many refusals there were.
func TestARefusalLoopIsJournaledAsCounts(t *testing.T) {
	const inFull, denied, literals = 3, 40, 7
	j, err := journal.Create(t.TempDir(), "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", time.Unix(1_763_000_000, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	now := func() time.Time { return time.Unix(1_763_000_100, 0) }
	network := testNetwork(t, "full")
	p := New(Options{Decider: &ProfileDecider{Network: network}, Record: RecordTo(j, now), Resolver: testNames(), Dial: dialPublic, RefusalsInFull: inFull})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(WithCallID(context.Background(), "call_loop"))
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: ln.Addr().String()})}, Timeout: 30 * time.Second}
	for i := 0; i < denied; i++ {
		if code, _, err := get(c, "http://denied.test/"); err != nil || code != http.StatusForbidden {
			t.Fatalf("request %d: %d %v", i, code, err)
		}
	}
	for i := 0; i < literals; i++ {
		if code, _, err := get(c, fmt.Sprintf("http://10.0.0.%d/", i)); err != nil || code != http.StatusForbidden {
			t.Fatalf("literal %d: %d %v", i, code, err)
		}
	}
	cancel() // the bridge's end: the counts are recorded
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	var conns []events.NetworkConnection
	for _, r := range committedKinds(t, j.Path()) {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := b.(*events.NetworkConnection); ok {
			conns = append(conns, *v)
		}
	}
	// 3 in full, then one count for denied.test and one per literal host
	// (each literal is a host of its own, under summaryHosts).
	if want := inFull + 1 + literals; len(conns) != want {
		t.Fatalf("%d connection records for %d refusals, want %d: %+v", len(conns), denied+literals, want, conns)
	}
	total := 0
	for i, v := range conns {
		if v.Allowed || v.CallID != "call_loop" {
			t.Fatalf("record %d = %+v", i, v)
		}
		switch {
		case i < inFull:
			if v.Refusals != 0 || v.Host != "denied.test" {
				t.Fatalf("record %d = %+v, want a refusal of denied.test in full", i, v)
			}
			total++
		default:
			if v.Refusals == 0 {
				t.Fatalf("record %d = %+v, want a count", i, v)
			}
			total += v.Refusals
		}
	}
	if conns[inFull].Host != "denied.test" || conns[inFull].Refusals != denied-inFull {
		t.Fatalf("denied.test's count = %+v, want %d", conns[inFull], denied-inFull)
	}
	if total != denied+literals {
		t.Fatalf("the journal accounts for %d refusals, want %d", total, denied+literals)
	}
}

func TestRefusalsPastTheFirstAreCountedPerHost(t *testing.T) {
	refusal := func(host string) Event {
		return Event{Request: Request{CallID: "c", Host: host, Port: 80, Protocol: ProtoHTTP}, Rule: "denied"}
	}
	cases := []struct {
		name string
		// hosts is the refusals, in order.
		hosts func() []string
		// wantAdmitted counts what admit let through (in full and the
		// periodic counts), wantDrained the counts left for the end.
		wantAdmitted, wantDrained int
	}{
		{"the first ones in full", func() []string { return []string{"a", "b"} }, 2, 0},
		{"the rest counted per host", func() []string { return []string{"a", "b", "a", "a", "b"} }, 2, 2},
		{"a count every thousand refusals of a host", func() []string {
			h := []string{"a", "b"}
			for i := 0; i < 2*summaryEvery+5; i++ {
				h = append(h, "a")
			}
			return h
		}, 4, 1},
		{"made-up names past the host bound share one count", func() []string {
			h := []string{"a", "b"}
			for i := 0; i < 3*summaryHosts; i++ {
				h = append(h, fmt.Sprintf("h%d.test", i))
			}
			return h
		}, 2, summaryHosts + 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &refusals{inFull: 2}
			hosts := tc.hosts()
			admitted, total := 0, 0
			for _, h := range hosts {
				if ev := r.admit(refusal(h)); ev != nil {
					admitted++
					total += max(ev.Refusals, 1)
				}
			}
			drained := r.drain("c")
			for _, ev := range drained {
				if ev.Refusals == 0 || ev.Allowed || ev.CallID != "c" {
					t.Fatalf("summary %+v", ev)
				}
				total += ev.Refusals
			}
			if admitted != tc.wantAdmitted || len(drained) != tc.wantDrained || total != len(hosts) {
				t.Fatalf("admitted %d, drained %d, accounting for %d refusals; want %d, %d, %d", admitted, len(drained), total, tc.wantAdmitted, tc.wantDrained, len(hosts))
			}
			if again := r.drain("c"); len(again) != 0 {
				t.Fatalf("a second drain returned %+v", again)
			}
		})
	}
}

// TestAPolicyDenialLoopIsNotJournaledAsADecisionEach: with nobody to ask
// (approval policy never, no terminal), every request to a host no rule
// covers is the policy's own denial, which the session's asker journals
// durably as a network decision. A command refused in a loop would add
// one record (and a sync) per request, past the bound on the connection
// records; only the call's first are journaled as decisions, and the
// connection counts still account for every refusal.
func TestAPolicyDenialLoopIsNotJournaledAsADecisionEach(t *testing.T) {
	const inFull, asked = 3, 40
	j, err := journal.Create(t.TempDir(), "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c", time.Unix(1_763_000_000, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	now := func() time.Time { return time.Unix(1_763_000_100, 0) }
	asker := &JournalingAsker{Journal: j, Now: now, Profile: "p"} // no person: nobody answers
	p := New(Options{Decider: &ProfileDecider{Network: testNetwork(t, "full"), Asker: asker}, Record: RecordTo(j, now),
		Resolver: testNames(), Dial: dialPublic, RefusalsInFull: inFull})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(WithCallID(context.Background(), "call_ask_loop"))
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: ln.Addr().String()})}, Timeout: 30 * time.Second}
	for i := 0; i < asked; i++ {
		if code, _, err := get(c, "http://ask.test/"); err != nil || code != http.StatusForbidden {
			t.Fatalf("request %d: %d %v", i, code, err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	decisions, refusals := 0, 0
	for _, r := range committedKinds(t, j.Path()) {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch v := b.(type) {
		case *events.NetworkDecision:
			if v.Source != events.SourceNoAnswer || v.Answer != events.NetworkAnswer(DenyHost) {
				t.Fatalf("decision %+v, want the policy's denial", v)
			}
			decisions++
		case *events.NetworkConnection:
			refusals += max(v.Refusals, 1)
		}
	}
	if decisions != inFull {
		t.Fatalf("%d decision records for %d requests nobody could answer, want the call's first %d", decisions, asked, inFull)
	}
	if refusals != asked {
		t.Fatalf("the connection records account for %d refusals, want %d", refusals, asked)
	}
}
