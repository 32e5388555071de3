package replay_test

import (
	"context"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/replay"
)

// TestPermissionsSwitchChangesTheSandboxAndReplays: after /permissions
// switches to a read-only profile, the next call runs under the new plan
// (its write-ahead record says so), the model is told, the journal
// verify-replays, and a restored session keeps the switched sandbox.
func TestPermissionsSwitchChangesTheSandboxAndReplays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	log := &enginetest.MemLog{}
	ls := func(id string) string {
		return `{"output":[{"type":"function_call","call_id":"` + id + `","name":"shell","arguments":{"command":["ls"]}}]}`
	}
	done := `{"output":[{"type":"message","content":"listed"}]}`
	s, mdl := policySession(t, log, ls("c1"), done, ls("c2"), done)
	mustTurn(t, s, "one")
	ro := events.SandboxPlan{Mode: events.SandboxReadOnly, Hidden: []string{"/home/dev/.ssh"}}
	ch := events.PermissionsChange{Profile: "locked", Previous: ":workspace", SandboxMode: "read-only", Plan: ro,
		Why: "permission profile locked chosen by /permissions"}
	if err := s.SetPermissions(ch, nil, events.SourceUser); err != nil {
		t.Fatal(err)
	}
	mustTurn(t, s, "two")

	modes := map[string]events.SandboxMode{}
	var change *events.PolicyChanged
	recs := log.Records()
	for _, r := range recs {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch v := b.(type) {
		case *events.ExecStarted:
			modes[v.CallID] = v.Sandbox.Mode
			if v.CallID == "c2" && (len(v.Sandbox.Hidden) != 1 || v.Sandbox.Hidden[0] != "/home/dev/.ssh") {
				t.Errorf("c2 ran under %+v, not the switched plan", v.Sandbox)
			}
		case *events.PolicyChanged:
			change = v
		}
	}
	if modes["c1"] != events.SandboxWorkspaceWrite || modes["c2"] != events.SandboxReadOnly {
		t.Fatalf("sandbox modes %v; want c1 workspace-write, c2 read-only", modes)
	}
	if change == nil || change.Permissions == nil || change.Permissions.Profile != "locked" || change.ApprovalPolicy != "untrusted" {
		t.Fatalf("journaled change %+v; want the profile switch, the approval policy unchanged", change)
	}
	dev := developerTexts(mdl.reqs[len(mdl.reqs)-1].Items)
	if len(dev) != 1 || !strings.Contains(dev[0], "permission profile changed from :workspace to locked") || !strings.Contains(dev[0], "read-only") {
		t.Fatalf("the model was told %q", dev)
	}

	if _, err := replay.Verify(ctx, recs, replay.Options{}); err != nil {
		t.Fatalf("verify: %v", err)
	}
	m, err := script.Parse("script", []byte(ls("c3")+"\n"+done))
	if err != nil {
		t.Fatal(err)
	}
	rlog := &enginetest.MemLog{}
	restored, err := engine.Restore(engine.Config{Model: &capture{Model: m}, Approver: flags(), Runner: &enginetest.FakeRunner{},
		Tools: []engine.Tool{engine.ShellTool{}, engine.ApplyPatchTool{}}}, rlog, recs)
	if err != nil {
		t.Fatal(err)
	}
	mustTurn(t, restored, "three")
	ran := 0
	for _, r := range rlog.Records() {
		if b, _ := r.Decode(); b != nil {
			if v, ok := b.(*events.ExecStarted); ok {
				ran++
				if v.Sandbox.Mode != events.SandboxReadOnly {
					t.Errorf("after resume %s ran under %s, want the switched read-only plan", v.CallID, v.Sandbox.Mode)
				}
			}
		}
	}
	if ran != 1 {
		t.Errorf("%d runs after the resume, want c3's", ran)
	}
}

// A switch to a sandbox mode that does not exist is refused before
// anything is journaled.
func TestPermissionsSwitchRefusesABadMode(t *testing.T) {
	t.Parallel()
	log := &enginetest.MemLog{}
	s, _ := policySession(t, log)
	before := len(log.Records())
	err := s.SetPermissions(events.PermissionsChange{Profile: "x", SandboxMode: "wide-open"}, nil, events.SourceUser)
	if err == nil || !strings.Contains(err.Error(), "x") {
		t.Fatalf("SetPermissions(wide-open) = %v; want an error naming the profile", err)
	}
	if len(log.Records()) != before {
		t.Fatal("a refused switch was journaled")
	}
}

// An approval policy change after a /permissions switch tells the model
// the sandbox in force, the switched one, not the one the session started
// with.
func TestApprovalChangeAfterASwitchNamesTheSwitchedSandbox(t *testing.T) {
	t.Parallel()
	log := &enginetest.MemLog{}
	s, _ := policySession(t, log)
	ch := events.PermissionsChange{Profile: "locked", Previous: ":workspace", SandboxMode: "read-only",
		Plan: events.SandboxPlan{Mode: events.SandboxReadOnly}}
	if err := s.SetPermissions(ch, nil, events.SourceUser); err != nil {
		t.Fatal(err)
	}
	if err := s.SetApprovalPolicy("on-request", events.SourceUser); err != nil {
		t.Fatal(err)
	}
	var last *events.PolicyChanged
	for _, r := range log.Records() {
		if b, _ := r.Decode(); b != nil {
			if v, ok := b.(*events.PolicyChanged); ok {
				last = v
			}
		}
	}
	if last == nil || last.ApprovalPolicy != "on-request" {
		t.Fatalf("last policy change %+v; want the approval change to on-request", last)
	}
	if !strings.Contains(last.Message, "Sandbox: read-only") || strings.Contains(last.Message, "workspace-write") {
		t.Fatalf("the model was told %q; want the switched read-only sandbox", last.Message)
	}
}
