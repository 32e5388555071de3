package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

const netSessionID = "0199b0c0-0000-7000-8000-0000000000e1"

// networkJournal writes, under home, a session with one sandboxed call
// whose command went through the egress proxy: a host the profile
// allows, one the user allowed once, and one nobody could be asked about.
func networkJournal(t *testing.T, home string) string {
	t.Helper()
	b := newJournalBuilder(t, home, netSessionID)
	add, durable, tr := b.add, b.durable, b.tr
	plan := events.SandboxPlan{Mode: "workspace-write", WritableRoots: []string{"/w"}, Egress: true}
	argv := []string{"sh", "-c", "curl https://api.github.com; curl http://example.org; curl https://nope.example"}
	add("", events.SessionStarted{Version: events.FormatVersion, SessionID: netSessionID, Cwd: "/w",
		Config: events.SessionConfig{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}, Plan: plan})
	add("", events.ModelResponse{TurnID: "turn-1", Request: 1, Items: []events.Item{
		{Type: events.ItemFunctionCall, CallID: "k1", Name: "shell", Arguments: `{"command":["sh","-c","curl"]}`},
	}})
	tr("k1", states.WantsApproval, states.RunSandboxed, states.CausePolicySkip)
	durable("k1", events.ExecStarted{CallID: "k1", Attempt: 1, Tool: "shell", Argv: argv, Cwd: "/w", Sandbox: plan})
	add("k1", events.NetworkConnection{CallID: "k1", Conn: 1, Protocol: "http-connect", Host: "api.github.com", Port: 443, Allowed: true,
		Rule: `permissions.dev.network.domains."api.github.com"`, Addr: "127.0.0.1:443"})
	durable("k1", events.NetworkDecision{CallID: "k1", Conn: 2, Host: "example.org", Port: 80, Protocol: "http", Method: "GET",
		Answer: events.NetworkAllowOnce, Source: events.SourceUser, Profile: "dev"})
	add("k1", events.NetworkConnection{CallID: "k1", Conn: 2, Protocol: "http", Method: "GET", Host: "example.org", Port: 80, Allowed: true,
		Rule: "user: allowed once", Addr: "127.0.0.1:80"})
	durable("k1", events.NetworkDecision{CallID: "k1", Conn: 3, Host: "nope.example", Port: 443, Protocol: "http-connect",
		Answer: events.NetworkDeny, Source: events.SourceNoAnswer, Profile: "dev"})
	add("k1", events.NetworkConnection{CallID: "k1", Conn: 3, Protocol: "http-connect", Host: "nope.example", Port: 443, Rule: "user: denied"})
	add("k1", events.ExecOutcome{CallID: "k1", Attempt: 1, ExitCode: 6, Layers: []string{"landlock:v7", "seccomp", "netns"}})
	tr("k1", states.Sandboxed, states.Finish, states.CauseCompleted)
	add("k1", events.ToolOutput{CallID: "k1", Success: false})
	add("", events.TurnEnded{TurnID: "turn-1", Status: events.TurnCompleted})
	return b.close()
}

// audit --network lists each record with its call, command and who
// decided; the default audit shows them under the call; --json carries
// them; --network refuses what it cannot combine with.
func TestAuditNetworkThroughTheCLI(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := networkJournal(t, home)
	stable := func(s string) []byte { return []byte(strings.ReplaceAll(s, path, "$JOURNAL")) }

	code, out, errOut := runAuditCLI(t, "audit", "--home", home, "--network", netSessionID)
	if code != 0 {
		t.Fatalf("audit --network: exit %d: %s", code, errOut)
	}
	checkGolden(t, filepath.Join("testdata", "audit", "network.txt"), stable(out))
	for _, want := range []string{"by profile rule", "by user: allow once", "by policy never", "call k1  sh -c", "refused nope.example:443"} {
		if !strings.Contains(out, want) {
			t.Errorf("audit --network lacks %q:\n%s", want, out)
		}
	}

	code, out, errOut = runAuditCLI(t, "audit", "--home", home, netSessionID)
	if code != 0 {
		t.Fatalf("audit: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "  network\n") || !strings.Contains(out, "asked about example.org:80 (http GET, conn 2): user: allow once") {
		t.Errorf("the call's audit does not show its network decisions:\n%s", out)
	}

	code, out, errOut = runAuditCLI(t, "audit", "--home", home, "--network", "--json", netSessionID)
	if code != 0 {
		t.Fatalf("audit --network --json: exit %d: %s", code, errOut)
	}
	var got struct {
		SessionID string `json:"session_id"`
		Network   []struct {
			Kind      string   `json:"kind"`
			CallID    string   `json:"call_id"`
			Command   []string `json:"command"`
			Host      string   `json:"host"`
			Allowed   bool     `json:"allowed"`
			DecidedBy string   `json:"decided_by"`
		} `json:"network"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("audit --network --json: %v\n%s", err, out)
	}
	if got.SessionID != netSessionID || len(got.Network) != 5 {
		t.Fatalf("audit --network --json: session %q, %d entries, want 5", got.SessionID, len(got.Network))
	}
	if last := got.Network[4]; last.Host != "nope.example" || last.Allowed || last.DecidedBy != "policy never" || last.CallID != "k1" || len(last.Command) != 3 {
		t.Errorf("last entry %+v, want nope.example refused by policy never for k1's command", last)
	}

	code, _, errOut = runAuditCLI(t, "audit", "--home", home, "--network", "--html", filepath.Join(t.TempDir(), "a.html"), netSessionID)
	if code != exitUsage || !strings.Contains(errOut, "--network") {
		t.Errorf("audit --network --html: exit %d (%s), want a usage error naming --network", code, errOut)
	}
}
