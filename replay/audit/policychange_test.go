package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/states"
)

// A call decided after the user changed the approval policy mid-session
// (/approvals, a policy_changed record) is explained under the policy in
// force then, not the one the session started with; a call before it
// keeps the session's.
func TestWhyNamesThePolicyInForceAfterAChange(t *testing.T) {
	w := newWriter(t, "0199a1b2-0000-7000-8000-00000000e001", events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "danger-full-access"})
	run := func(turn, id string) {
		w.add("", events.UserTurn{TurnID: turn, Text: "build"})
		w.response(turn, 1, shellItem(id, map[string]any{"command": []string{"make"}}))
		w.tr(id, states.WantsApproval, states.RunUnsandboxed, states.CauseDangerFullAccess, "sandbox mode danger-full-access")
		w.start(id, 1, "shell", []string{"make"}, noPlan)
		w.outcome(id, 1, 0, nil, nil)
		w.tr(id, states.Unsandboxed, states.Finish, states.CauseCompleted, "exit 0")
		w.output(id, true)
		w.durable("", events.TurnEnded{TurnID: turn, Status: events.TurnCompleted})
	}
	run("turn-1", "a1")
	w.durable("", events.PolicyChanged{ApprovalPolicy: "never", Previous: "on-request", Source: events.SourceUser})
	run("turn-2", "a2")
	r, err := Build(w.close(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"a1": "approval policy on-request with sandbox danger-full-access",
		"a2": "approval policy never with sandbox danger-full-access",
	} {
		if got := callByID(t, r, id).WhyUnsandboxed; got != want {
			t.Errorf("%s: why %q, want %q", id, got, want)
		}
	}
}

// Records gives the same report as Stream over the same journal.
func TestRecordsMatchesStream(t *testing.T) {
	path := mixedSession(t)
	want, err := Build(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := j.All()
	if cerr := j.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	if err := Records(context.Background(), path, recs, Options{}, c); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(c.report)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Fatalf("Records differs from Stream:\n%s\n%s", got, exp)
	}
}

// A policy change is an event of the audit, in its place among the calls,
// in every format: journaled, it used to be shown nowhere.
func TestAuditShowsThePolicyChange(t *testing.T) {
	w := newWriter(t, "0199a1b2-0000-7000-8000-00000000e002", events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "danger-full-access"})
	w.durable("", events.PolicyChanged{ApprovalPolicy: "never", Previous: "on-request", Source: events.SourceUser})
	path := w.close()
	r, err := Build(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got *PolicyChange
	for _, e := range r.Events {
		if e.Kind == EventPolicyChange {
			got = e.Policy
		}
	}
	if got == nil || got.ApprovalPolicy != "never" || got.Previous != "on-request" || got.Source != string(events.SourceUser) {
		t.Fatalf("policy change event %+v in %+v", got, r.Events)
	}
	var text strings.Builder
	if err := WriteText(&text, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "approval policy never (was on-request), changed by user") {
		t.Fatalf("the text audit does not show the change:\n%s", text.String())
	}
}

// A permission profile switch (/permissions) is shown where it happened,
// naming the profile, the one before, the sandbox and what it hides.
func TestAuditShowsAPermissionProfileSwitch(t *testing.T) {
	w := newWriter(t, "0199a1b2-0000-7000-8000-00000000e002", events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"})
	w.durable("", events.PolicyChanged{ApprovalPolicy: "on-request", Previous: "on-request", Source: events.SourceUser,
		Permissions: &events.PermissionsChange{Profile: "locked", Previous: ":workspace", SandboxMode: "read-only",
			Plan: events.SandboxPlan{Mode: events.SandboxReadOnly, Hidden: []string{"/home/dev/.ssh"}}}})
	path := w.close()
	text := string(streamed(t, path, Options{}, func(b *bytes.Buffer) Sink { return NewTextWriter(b, Options{}) }))
	for _, want := range []string{"permission profile locked (was :workspace), switched by user: sandbox read-only", "hides /home/dev/.ssh"} {
		if !strings.Contains(text, want) {
			t.Errorf("audit lacks %q:\n%s", want, text)
		}
	}
	page := string(streamed(t, path, Options{}, func(b *bytes.Buffer) Sink { return NewHTMLWriter(b) }))
	if !strings.Contains(page, "Permission profile switched") || !strings.Contains(page, "<code>locked</code>") {
		t.Errorf("the HTML audit does not show the switch:\n%s", page)
	}
}
