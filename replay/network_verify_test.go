package replay_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay"
)

// withNetwork copies a golden journal, adding conn (filed under call
// filed) right after call c1's exec_started.
func withNetwork(t *testing.T, src, filed string, conn events.NetworkConnection) string {
	t.Helper()
	recs := readAll(t, src)
	first, _ := recs[0].Decode()
	ss := first.(*events.SessionStarted)
	j, err := journal.Create(t.TempDir(), ss.SessionID+"-net", nowish())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := j.Close(); err != nil {
			t.Error(err)
		}
	}()
	added := false
	for _, r := range recs {
		body, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Append(atOf(r), r.CallID, body); err != nil {
			t.Fatal(err)
		}
		if !added && r.Kind == events.KindExecStarted && r.CallID == "c1" {
			if _, err := j.Append(atOf(r), filed, conn); err != nil {
				t.Fatal(err)
			}
			added = true
		}
	}
	if !added {
		t.Fatalf("%s has no exec_started of c1", src)
	}
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	return j.Path()
}

// TestVerifyReportsNetworkRecordsNoCallMade: a network record verify does
// not feed back is not taken as recorded when its call never ran, nor
// when the call it is filed under is not the one it names (the audit
// shows it under the latter): verify fails naming the record, its call
// and host. A record of the call that ran is fed back and verifies.
func TestVerifyReportsNetworkRecordsNoCallMade(t *testing.T) {
	t.Parallel()
	const src = "../testdata/journals/approval.docket"
	conn := func(call string) events.NetworkConnection {
		return events.NetworkConnection{CallID: call, Conn: 1, Protocol: "http-connect", Host: "exfil.example", Port: 443, Allowed: true, Rule: "user: allowed once"}
	}
	for _, tc := range []struct {
		name, filed string
		conn        events.NetworkConnection
		want        string // "" verifies
	}{
		{"a connection of the call that ran verifies", "c1", conn("c1"), ""},
		{"a connection of a call that never ran", "ghost", conn("ghost"), "under call ghost, which the replay never ran"},
		{"filed under the call that ran, naming another", "c1", conn("ghost"), `filed under call "c1" that names call "ghost"`},
		{"filed under another call, naming the one that ran", "ghost", conn("c1"), `filed under call "ghost" that names call "c1"`},
		{"filed under no call", "", conn(""), `filed under call "" that names call ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := withNetwork(t, src, tc.filed, tc.conn)
			_, err := replay.VerifyFile(context.Background(), path, replay.Options{})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("verify: %v", err)
				}
				return
			}
			var d *replay.Divergence
			if !errors.As(err, &d) || d.Kind != events.KindNetworkConnection || d.CallID != tc.filed {
				t.Fatalf("want a divergence at the network_connection of call %q, got %v", tc.filed, err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "exfil.example") {
				t.Fatalf("the divergence should say %q and name the host:\n%v", tc.want, msg)
			}
		})
	}
}
