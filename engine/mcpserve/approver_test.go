package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/events"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestApprovalMessageFencesClientText: a justification, a patch and
// command arguments that imitate Docket's lines, with every kind of line
// break, stay inside the fence or on their own quoted line.
func TestApprovalMessageFencesClientText(t *testing.T) {
	got := approvalMessage(engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{CallID: "mcp_4", Kind: events.ApprovalPatch,
		Phase: events.PhaseInitial, Command: []string{"sh", "-c", "true\nIt runs in the sandbox."}, Cwd: "/w\rcwd: /safe", Reason: "fine\nIt runs in the sandbox.\u2028reason: harmless"}, ModelJustification: true,
		Patch: "*** Begin Patch\r\nIt runs in the sandbox.\u0085done"})
	for _, w := range []string{"  | It runs in the sandbox.\n", "  | reason: harmless\n", "  | done\n", `command: sh -c "true\nIt runs in the sandbox."`, `cwd: "/w\rcwd: /safe"`} {
		if !strings.Contains(got, w) {
			t.Errorf("message does not say %q:\n%s", w, got)
		}
	}
	assertFenced(t, got, "It runs in the sandbox.", "reason: harmless", "cwd: /safe")
}

// noOpener opens nothing.
type noOpener struct{}

func (noOpener) Open(context.Context, OpenRequest) (Session, error) {
	return nil, errors.New("no sessions here")
}

func (noOpener) Reopen(context.Context, string, OpenRequest) (Session, error) {
	return nil, errors.New("no sessions here")
}

// TestApprovalMessage: the question says what runs, where, why, and what
// a yes allows; the client's own justification is labelled as its words.
func TestApprovalMessage(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  engine.ApprovalRequest
		want []string
		not  []string
	}{
		{"a retry without the sandbox", engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{CallID: "mcp_2", Kind: events.ApprovalExec,
			Phase: events.PhaseRetry, Command: []string{"touch", "/etc/x"}, Cwd: "/w", Reason: "command failed; retry without sandbox?"}, Unsandboxed: true},
			[]string{"mcp_2", "a retry after the sandbox blocked it", "command: touch /etc/x", "cwd: /w", "reason: command failed", "WITHOUT the sandbox"}, nil},
		{"an escalation the client justified", engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{CallID: "mcp_1", Kind: events.ApprovalExec,
			Phase: events.PhaseInitial, Command: []string{"make"}, Reason: "needs the network"}, ModelJustification: true},
			[]string{"the client's justification, each line after \"|\":\n  | needs the network\n"}, []string{"retry", "WITHOUT"}},
		{"a patch", engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{CallID: "mcp_3", Kind: events.ApprovalPatch, Phase: events.PhaseInitial},
			Patch: "*** Begin Patch\n*** End Patch", RetryUnsandboxed: true},
			[]string{"patch, each line after \"|\":\n  | *** Begin Patch\n  | *** End Patch\n", "re-run it without the sandbox if the sandbox blocks it"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := approvalMessage(tc.req)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("message does not say %q:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("message says %q:\n%s", n, got)
				}
			}
		})
	}
}

// TestParkedErrorSaysHowToGoOn names the session, each call and the
// command that answers them.
func TestParkedErrorSaysHowToGoOn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cause error
		want  []string
		not   string
	}{
		{"not tried yet", nil, []string{"session s1", "mcp_1, mcp_2", "docket resume s1 --decisions mcp_1=approved,mcp_2=approved", "call again"}, "taking it back"},
		{"still waiting", fmt.Errorf("s1: %w", ErrStillParked), []string{"docket resume s1"}, "taking it back"},
		{"could not be taken back", errors.New("journal in use by pid 7"), []string{"taking it back failed: journal in use by pid 7"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := (&parkedError{id: "s1", calls: []string{"mcp_1", "mcp_2"}, cause: tc.cause}).Error()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q does not say %q", got, w)
				}
			}
			if tc.not != "" && strings.Contains(got, tc.not) {
				t.Errorf("%q says %q", got, tc.not)
			}
		})
	}
}

// connect joins a real server session to an in-memory client whose
// elicitation handler is elicit (nil: the client declares no elicitation).
func connect(t *testing.T, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ServerSession {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "docket-test"}, &mcp.ServerOptions{SupportedProtocolVersions: ProtocolVersions})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, &mcp.ClientOptions{ElicitationHandler: elicit}).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return ss
}

// TestElicitApproverContract: the engine's approver contract, with the
// answers given by a real MCP client through elicitation; a client with no
// answer left dismisses the question, which parks.
func TestElicitApproverContract(t *testing.T) {
	enginetest.CheckApprover(t, func(t *testing.T, answers ...events.ReviewDecision) engine.Approver {
		var mu sync.Mutex
		return elicitApprover{ss: connect(t, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			if len(answers) == 0 {
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}
			d := answers[0]
			answers = answers[1:]
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": string(d)}}, nil
		})}
	})
}

// TestElicitApproverActions: what each elicitation action decides, and a
// client that cannot be asked parks without being asked.
func TestElicitApproverActions(t *testing.T) {
	req := engine.ApprovalRequest{ApprovalRequested: events.ApprovalRequested{CallID: "mcp_1", Phase: events.PhaseInitial, Command: []string{"ls"}}}
	for _, tc := range []struct {
		name    string
		answer  *mcp.ElicitResult
		want    events.ReviewDecision
		parks   bool
		noElict bool
	}{
		{"accept without a decision approves once", &mcp.ElicitResult{Action: "accept"}, events.Approved, false, false},
		{"accept for the session", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approved_for_session"}}, events.ApprovedForSession, false, false},
		{"decline denies", &mcp.ElicitResult{Action: "decline"}, events.Denied, false, false},
		{"cancel parks", &mcp.ElicitResult{Action: "cancel"}, "", true, false},
		{"no elicitation capability parks", nil, "", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := 0
			var h func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
			if !tc.noElict {
				h = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { asked++; return tc.answer, nil }
			}
			ans, err := elicitApprover{ss: connect(t, h)}.Decide(context.Background(), req)
			if tc.parks {
				if !errors.Is(err, engine.ErrNoDecision) {
					t.Fatalf("Decide = %+v, %v; want ErrNoDecision", ans, err)
				}
			} else if err != nil || ans.Decision != tc.want || ans.Source != events.SourceMCPElicitation {
				t.Fatalf("Decide = %+v, %v; want %s through MCP elicitation", ans, err, tc.want)
			}
			if tc.noElict && asked != 0 {
				t.Error("a client without elicitation was asked")
			}
		})
	}
}
