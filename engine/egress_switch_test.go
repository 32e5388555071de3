package engine_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/permissions"
)

// networkNotices keeps the network notices a session shows.
type networkNotices struct {
	mu  sync.Mutex
	got []engine.Notice
}

func (o *networkNotices) Notify(n engine.Notice) {
	if n.Type != engine.NoticeNetwork {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, n)
}

// TestAPermissionsSwitchMovesTheProxyToTheProfilesRules: a session that
// started without a proxy gets one with a /permissions switch to a
// profile whose network goes through it, answers under that profile's
// name (each record shown to the observer once journaled), and has none
// again after switching away. The switch records the profile's rules, so
// a resume serves the plan's proxy whatever its configuration names
// (egress_resume_test.go checks the rules it serves).
func TestAPermissionsSwitchMovesTheProxyToTheProfilesRules(t *testing.T) {
	sm, err := script.Parse("s.jsonl", []byte(`{"output":[{"type":"message","content":"ok"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	obs := &networkNotices{}
	cfg := engine.Config{SessionID: "01a213dd-3096-70c1-ad19-4f6160183b50", Cwd: t.TempDir(),
		Session: events.SessionConfig{ApprovalPolicy: "never", SandboxMode: "workspace-write"},
		Plan:    events.SandboxPlan{Mode: events.SandboxWorkspaceWrite},
		Model:   sm, Approver: &netApprover{decide: answer(events.Denied)}, Runner: &enginetest.FakeRunner{}, Observer: obs}
	log := &enginetest.MemLog{}
	s, err := engine.Start(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	egressPlan := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, Egress: true}
	start := events.ExecStarted{CallID: "c1", Argv: []string{"curl"}, Cwd: "/w", Sandbox: egressPlan}
	if s.BridgeFor("turn-1", start) != nil {
		t.Fatal("a session without a network profile has a proxy")
	}
	eg := &engine.Egress{Network: permissions.Network{Enabled: true, Mode: permissions.ModeFull}, Profile: "q", Resolver: loopbackNames{}}
	ch := events.PermissionsChange{Profile: "q", Previous: ":workspace", SandboxMode: "workspace-write", Plan: egressPlan}
	if err := s.SetPermissions(ch, nil, events.SourceUser); err == nil || !strings.Contains(err.Error(), "permission profile q") {
		t.Fatalf("an egress plan without proxy rules: %v, want a refusal naming the profile", err)
	}
	if err := s.SetPermissions(ch, eg, events.SourceUser); err != nil {
		t.Fatal(err)
	}
	if s.BridgeFor("turn-1", start) == nil {
		t.Fatal("after the switch to a network profile the call has no bridge")
	}
	askTwice(t, s)
	var profiles []string
	for _, r := range log.Records() {
		if b, _ := r.Decode(); b != nil {
			if d, ok := b.(*events.NetworkDecision); ok {
				profiles = append(profiles, d.Profile)
			}
		}
	}
	if strings.Join(profiles, ",") != "q,q" {
		t.Errorf("decisions journaled under %v, want two under q", profiles)
	}
	obs.mu.Lock()
	shown := len(obs.got)
	obs.mu.Unlock()
	if shown != 4 {
		t.Errorf("%d network notices, want 4 (two decisions, two connections)", shown)
	}

	for _, tc := range []struct {
		name   string
		egress *engine.Egress
		bridge bool
	}{
		{"resumed with the switched profile's rules", eg, true},
		{"resumed with another profile's rules", &engine.Egress{Network: eg.Network, Profile: "other", Resolver: loopbackNames{}}, true},
		{"resumed with none", nil, true},
	} {
		rc := cfg
		rc.Egress = tc.egress
		resumed, err := engine.Restore(rc, &enginetest.MemLog{}, log.Records())
		if err != nil {
			t.Fatal(err)
		}
		if got := resumed.BridgeFor("turn-2", start) != nil; got != tc.bridge {
			t.Errorf("%s: bridge %v, want %v", tc.name, got, tc.bridge)
		}
	}

	away := events.PermissionsChange{Profile: ":workspace", Previous: "q", SandboxMode: "workspace-write", Plan: events.SandboxPlan{Mode: events.SandboxWorkspaceWrite}}
	if err := s.SetPermissions(away, eg, events.SourceUser); err != nil {
		t.Fatal(err)
	}
	if s.BridgeFor("turn-1", start) != nil {
		t.Error("after switching away the proxy still serves")
	}
}
