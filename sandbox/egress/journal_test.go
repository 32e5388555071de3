package egress

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/journal/journaltest"
)

// committedKinds reads the journal file as a crash at this instant would
// leave it: only what was committed.
func committedKinds(t *testing.T, path string) []events.Record {
	t.Helper()
	recs, err := journaltest.OnDisk(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestAnAnswerIsDurableBeforeAByteIsForwardedAndReplayAsksNobody(t *testing.T) {
	_, port, hits := upstream(t)
	j, err := journal.Create(t.TempDir(), "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", time.Unix(1_763_000_000, 0))
	if err != nil {
		t.Fatal(err)
	}
	path := j.Path()
	now := func() time.Time { return time.Unix(1_763_000_100, 0) }
	person := &asker{answer: AllowOnce}
	var pendingAtForward atomic.Int64
	pendingAtForward.Store(-1)
	var onDiskAtForward []events.Record
	h := startProxy(t, "full", func(o *Options) {
		o.Decider = &ProfileDecider{Network: testNetwork(t, "full"), Asker: &JournalingAsker{Person: person, Journal: j, Now: now, Profile: "p"}}
		record := RecordTo(j, now)
		o.Record = func(ev Event) {
			if ev.Allowed {
				// The answer is committed by now; this record rides on the
				// next commit.
				pendingAtForward.Store(int64(j.Pending()))
				onDiskAtForward = committedKinds(t, path)
			}
			record(ev)
		}
	})
	c := h.client()
	if code, _, err := get(c, "http://ask.test:"+port+"/"); err != nil || code != 200 || hits.Load() != 1 {
		t.Fatalf("asked host: %d %v hits %d", code, err, hits.Load())
	}
	if got := pendingAtForward.Load(); got != 0 {
		t.Fatalf("%d records were not durable when the connection was let through, want 0 (the answer committed)", got)
	}
	recs := onDiskAtForward
	if len(recs) == 0 || recs[len(recs)-1].Kind != events.KindNetworkDecision {
		t.Fatalf("records on disk when the connection was let through: %+v", recs)
	}
	body, err := recs[len(recs)-1].Decode()
	if err != nil {
		t.Fatal(err)
	}
	d := body.(*events.NetworkDecision)
	if d.Host != "ask.test" || d.CallID != "call_1" || recs[len(recs)-1].CallID != "call_1" || d.Answer != events.NetworkAllowOnce || d.Source != events.SourceUser || d.Profile != "p" {
		t.Fatalf("decision = %+v", d)
	}
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	j.Close()
	recs = committedKinds(t, path)
	var conns []events.NetworkConnection
	var decisions []events.NetworkDecision
	for _, r := range recs {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch v := b.(type) {
		case *events.NetworkConnection:
			conns = append(conns, *v)
		case *events.NetworkDecision:
			decisions = append(decisions, *v)
		}
	}
	if len(conns) != 1 || !conns[0].Allowed || conns[0].Rule != "user: allowed once" || conns[0].Host != "ask.test" {
		t.Fatalf("connections = %+v", conns)
	}

	// Replay: the recorded answer is fed back, nobody is asked, and a
	// question the journal cannot answer is an error, not a prompt.
	replay := NewRecordedAsker(decisions)
	dec := &ProfileDecider{Network: testNetwork(t, "full"), Asker: replay}
	got, err := dec.Decide(context.Background(), Request{CallID: "call_1", Host: "ask.test", Port: mustAtoi(t, port), Protocol: ProtoHTTP, Method: "GET"})
	if err != nil || !got.Allow || got.Rule != "user: allowed once" {
		t.Fatalf("replayed decision = %+v, %v", got, err)
	}
	if _, err := dec.Decide(context.Background(), Request{CallID: "call_9", Host: "other-unknown.test", Port: 443}); err == nil || !strings.Contains(err.Error(), "no answer") {
		t.Fatalf("an unrecorded question: %v", err)
	}
	if person.asked.Load() != 1 {
		t.Fatalf("the person was asked %d times, want once (live only)", person.asked.Load())
	}
}

func TestAJournalThatCannotBeWrittenRefuses(t *testing.T) {
	_, port, hits := upstream(t)
	j, err := journal.Create(t.TempDir(), "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c", time.Unix(1_763_000_000, 0))
	if err != nil {
		t.Fatal(err)
	}
	j.Close() // every append now fails
	h := startProxy(t, "full", func(o *Options) {
		o.Decider = &ProfileDecider{Network: testNetwork(t, "full"), Asker: &JournalingAsker{Person: &asker{answer: AllowSession}, Journal: j, Now: time.Now}}
	})
	if code, _, _ := get(h.client(), "http://ask.test:"+port+"/"); code != 403 || hits.Load() != 0 {
		t.Fatalf("with an unwritable journal: %d, hits %d", code, hits.Load())
	}
	if ev := h.rec.nth(t, 1); ev.Allowed || !strings.Contains(ev.Rule, "journaling the answer") {
		t.Fatalf("event = %+v", ev)
	}
}

func TestUnderNeverTheDenialIsJournaled(t *testing.T) {
	j, err := journal.Create(t.TempDir(), "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5d", time.Unix(1_763_000_000, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	dec := &ProfileDecider{Network: testNetwork(t, "full"), Asker: &JournalingAsker{Journal: j, Now: time.Now}}
	got, err := dec.Decide(context.Background(), Request{CallID: "call_1", Host: "ask.test", Port: 80})
	if err != nil || got.Allow {
		t.Fatalf("under never: %+v %v", got, err)
	}
	// Nobody was asked: the denial is the policy's, never a person's.
	if strings.HasPrefix(got.Rule, "user:") || !strings.Contains(got.Rule, "approval policy never") {
		t.Errorf("under never the rule is %q; want the policy's words, not a person's", got.Rule)
	}
	recs := committedKinds(t, j.Path())
	if len(recs) == 0 || recs[len(recs)-1].Kind != events.KindNetworkDecision || recs[len(recs)-1].CallID != "call_1" {
		t.Fatalf("records = %+v", recs)
	}
}

func TestAnAlwaysAnswerIsWrittenOrSaysItWasNot(t *testing.T) {
	for _, tc := range []struct {
		name    string
		persist func(string) (string, func() error, error)
		want    events.NetworkAnswer
		written string
	}{
		{"written", func(h string) (string, func() error, error) {
			return "permissions.p.network.domains." + h, func() error { return nil }, nil
		}, events.NetworkAllowAlways, "permissions.p.network.domains.ask.test"},
		{"the rule cannot be written", func(string) (string, func() error, error) {
			return "", nil, errors.New("read-only file system")
		}, events.NetworkAllowSession, ""},
		{"nowhere to write", nil, events.NetworkAllowSession, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := journal.Create(t.TempDir(), "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5e", time.Unix(1_763_000_000, 0))
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			dec := &ProfileDecider{Network: testNetwork(t, "full"), Asker: &JournalingAsker{Person: &asker{answer: AllowAlways}, Journal: j, Now: time.Now, Persist: tc.persist}}
			if got, err := dec.Decide(context.Background(), Request{CallID: "call_1", Host: "ask.test", Port: 443}); err != nil || !got.Allow {
				t.Fatalf("decision %+v %v", got, err)
			}
			recs := committedKinds(t, j.Path())
			b, err := recs[len(recs)-1].Decode()
			if err != nil {
				t.Fatal(err)
			}
			if d := b.(*events.NetworkDecision); d.Answer != tc.want || d.RuleWritten != tc.written {
				t.Fatalf("record = %+v, want %s written %q", d, tc.want, tc.written)
			}
		})
	}
}

// The "always" rule is written only once the answer naming it is
// durable: a journal that cannot be written leaves the config as it was,
// and the write never comes before the record.
func TestAnAlwaysRuleIsWrittenOnlyAfterItsAnswerIsDurable(t *testing.T) {
	for _, tc := range []struct {
		name        string
		journalFail bool
	}{
		{"the journal is written: the rule follows the record", false},
		{"the journal fails: nothing is written", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := journal.Create(t.TempDir(), "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5f", time.Unix(1_763_000_000, 0))
			if err != nil {
				t.Fatal(err)
			}
			path := j.Path()
			if tc.journalFail {
				if err := j.Close(); err != nil {
					t.Fatal(err)
				}
			} else {
				defer j.Close()
			}
			config := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(config, []byte("# mine\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			var onDiskAtWrite []events.Record
			persist := func(h string) (string, func() error, error) {
				return "permissions.p.network.domains." + h, func() error {
					onDiskAtWrite = committedKinds(t, path)
					return os.WriteFile(config, []byte("# mine\n[permissions.p.network.domains]\n\""+h+"\" = \"allow\"\n"), 0o600)
				}, nil
			}
			dec := &ProfileDecider{Network: testNetwork(t, "full"), Asker: &JournalingAsker{Person: &asker{answer: AllowAlways}, Journal: j, Now: time.Now, Persist: persist}}
			got, err := dec.Decide(context.Background(), Request{CallID: "call_1", Host: "ask.test", Port: 443})
			data, rerr := os.ReadFile(config)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if tc.journalFail {
				if err == nil || got.Allow {
					t.Fatalf("decision %+v %v, want an error (nothing journaled, nothing allowed)", got, err)
				}
				if string(data) != "# mine\n" || onDiskAtWrite != nil {
					t.Fatalf("the config was written though the answer was not journaled:\n%s", data)
				}
				return
			}
			if err != nil || !got.Allow || !strings.Contains(string(data), "ask.test") {
				t.Fatalf("decision %+v %v; config:\n%s", got, err, data)
			}
			if n := len(onDiskAtWrite); n == 0 || onDiskAtWrite[n-1].Kind != events.KindNetworkDecision {
				t.Fatalf("on disk when the rule was written: %+v, want the answer last", onDiskAtWrite)
			}
			b, err := onDiskAtWrite[len(onDiskAtWrite)-1].Decode()
			if err != nil {
				t.Fatal(err)
			}
			if d := b.(*events.NetworkDecision); d.Answer != events.NetworkAllowAlways || d.RuleWritten != "permissions.p.network.domains.ask.test" {
				t.Fatalf("the durable answer = %+v", d)
			}
		})
	}
}
