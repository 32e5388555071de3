package audit

import (
	"bytes"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

// TestANetworkRecordWhoseCallIDsDisagreeIsFlagged: the egress proxy files
// a network record under the call its body names; a record filed under
// one call that names another (or none) is damaged or forged, and verify
// refuses it. The audit, which lists it under the call the body names,
// says so too: an invariant violation naming both ids and the host, in
// the report and its text.
func TestANetworkRecordWhoseCallIDsDisagreeIsFlagged(t *testing.T) {
	for _, tc := range []struct {
		name, filed, named string
		flagged            bool
	}{
		{"filed and named alike", "n1", "n1", false},
		{"filed under the call that ran, naming another", "n1", "ghost", true},
		{"filed under another call, naming the one that ran", "ghost", "n1", true},
		{"naming no call", "n1", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWriter(t, "0199a1b2-0000-7000-8000-00000000f0c1", events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"})
			w.add("", events.UserTurn{TurnID: "turn-1", Text: "fetch"})
			argv := []string{"curl", "-s", "https://exfil.example/"}
			w.response("turn-1", 1, shellItem("n1", map[string]any{"command": argv}))
			w.tr("n1", states.WantsApproval, states.RunSandboxed, states.CausePolicySkip, "no approval needed")
			w.start("n1", 1, "shell", argv, wsPlan)
			w.add(tc.filed, events.NetworkConnection{CallID: tc.named, Conn: 1, Protocol: "http-connect", Host: "exfil.example", Port: 443,
				Allowed: true, Rule: "user: allowed once"})
			w.outcome("n1", 1, 0, fsLayers, nil)
			w.tr("n1", states.Sandboxed, states.Finish, states.CauseCompleted, "exit 0")
			w.output("n1", true)
			w.durable("", events.TurnEnded{TurnID: "turn-1", Status: events.TurnCompleted})
			path := w.close()
			r, err := Build(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var found *Violation
			for i, v := range r.Violations {
				if strings.Contains(v.Message, "exfil.example") {
					found = &r.Violations[i]
				}
			}
			if !tc.flagged {
				if found != nil {
					t.Fatalf("a consistent record is flagged: %+v", found)
				}
				return
			}
			if found == nil {
				t.Fatalf("no violation names the record; violations %+v", r.Violations)
			}
			for _, want := range []string{`filed under call "` + tc.filed + `"`, `names call "` + tc.named + `"`} {
				if !strings.Contains(found.Message, want) {
					t.Errorf("the violation does not say %s: %s", want, found.Message)
				}
			}
			text := string(streamed(t, path, Options{}, func(b *bytes.Buffer) Sink { return NewTextWriter(b, Options{}) }))
			if !strings.Contains(text, "invariant violation") || !strings.Contains(text, `names call "`+tc.named+`"`) {
				t.Errorf("the text audit does not flag it:\n%s", text)
			}
		})
	}
}
