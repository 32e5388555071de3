package audit

import (
	"bytes"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
)

// mcpSession writes a docket mcp-server session: the sandbox denies m1's
// write and the MCP client approves the retry through elicitation; m2's
// retry was approved by "user", as journals from before the
// mcp_elicitation source record it.
func mcpSession(tb testing.TB) string {
	w := newWriterWith(tb, "0199a1b2-0000-7000-8000-00000000c001", events.SessionConfig{ApprovalPolicy: "on-failure", SandboxMode: "workspace-write",
		WritableRoots: []string{fixtureCwd}}, []events.Setting{{Key: MCPClientSetting, Value: "claude-code 2.1.0"}})
	cmd := []string{"bash", "-lc", "touch /etc/x"}
	for i, src := range []events.DecisionSource{events.SourceMCPElicitation, events.SourceUser} {
		id := []string{"m1", "m2"}[i]
		w.add("", events.UserTurn{TurnID: "turn-" + id, Text: "mcp tool call " + id})
		w.response("turn-"+id, 1, shellItem(id, map[string]any{"command": cmd}))
		w.tr(id, states.WantsApproval, states.RunSandboxed, states.CausePolicySkip, "no approval needed")
		w.start(id, 1, "shell", cmd, wsPlan)
		w.outcome(id, 1, 1, fsLayers, erofs)
		w.tr(id, states.Sandboxed, states.SandboxDenied, states.CauseSandboxDenial, "sandbox denied it: write outside the writable roots")
		w.tr(id, states.RetryPrompt, states.Ask, states.CauseSandboxDenial, "command failed; retry without sandbox?")
		w.ask(id, events.PhaseRetry, events.ApprovalExec, cmd, "command failed; retry without sandbox?")
		w.decide(id, events.PhaseRetry, "approved", src)
		w.tr(id, states.AwaitingDecision, states.RunUnsandboxed, states.CauseUserApproved, "approved by "+src.String())
		w.start(id, 2, "shell", cmd, noPlan)
		w.outcome(id, 2, 0, nil, nil)
		w.tr(id, states.Unsandboxed, states.Finish, states.CauseCompleted, "exit 0")
		w.output(id, true)
	}
	return w.close()
}

// TestMCPElicitationNamesTheClient: an answer given through MCP elicitation
// is the named client's in every rendering (text, JSON, HTML) and in the
// why-unsandboxed line; an older "user" answer still reads as the user's.
func TestMCPElicitationNamesTheClient(t *testing.T) {
	path := mcpSession(t)
	text := func(o Options) func(*bytes.Buffer) Sink {
		return func(b *bytes.Buffer) Sink { return NewTextWriter(b, o) }
	}
	const by = `MCP client "claude-code 2.1.0" through elicitation`
	for _, tc := range []struct {
		name   string
		opts   Options
		writer func(*bytes.Buffer) Sink
		want   []string
	}{
		{"mcp.txt.golden", Options{}, text(Options{}), []string{"approved by " + by, by + " approved the retry", "user approved the retry"}},
		{"mcp.unsandboxed.txt.golden", Options{UnsandboxedOnly: true}, text(Options{UnsandboxedOnly: true}), []string{by + " approved the retry"}},
		{"mcp.json.golden", Options{}, func(b *bytes.Buffer) Sink { return NewJSONWriter(b) }, []string{`"source":"mcp_elicitation"`, `"client":"claude-code 2.1.0"`}},
		{"mcp.html.golden", Options{}, func(b *bytes.Buffer) Sink { return NewHTMLWriter(b) }, []string{"by MCP client &#34;claude-code 2.1.0&#34; through elicitation"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := streamed(t, path, tc.opts, tc.writer)
			for _, w := range tc.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("%s does not say %q:\n%s", tc.name, w, got)
				}
			}
			golden(t, tc.name, got)
		})
	}
}
