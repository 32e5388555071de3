package mcpserve

import (
	"context"
	"fmt"
	"strings"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// elicitSchema is the form an approval request asks the client to fill:
// one optional decision. Accepting without one approves the call once.
var elicitSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"decision": map[string]any{
			"type": "string",
			"enum": []string{string(events.Approved), string(events.ApprovedForSession), string(events.Denied), string(events.Abort)},
			"description": "approved (this call once), approved_for_session (this and the same again this session), " +
				"denied (the call does not run; the client gets the refusal) or abort (end the call's turn)",
		},
	},
}

// elicitApprover asks the client's user through MCP elicitation. A client
// that did not declare the elicitation capability (or dismisses the
// question) gets no decision: the engine parks the call, to be answered
// with docket resume.
type elicitApprover struct {
	ss *mcp.ServerSession
}

// canElicit reports whether the client declared form elicitation.
func canElicit(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	// Neither mode declared means form, as the SDK reads it.
	return e.Form != nil || e.URL == nil
}

// Decide implements engine.Approver.
func (a elicitApprover) Decide(ctx context.Context, req engine.ApprovalRequest) (engine.Answer, error) {
	if !canElicit(a.ss) {
		return engine.Answer{}, engine.ErrNoDecision
	}
	res, err := a.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: approvalMessage(req), RequestedSchema: elicitSchema})
	if err != nil {
		if ctx.Err() != nil {
			return engine.Answer{}, fmt.Errorf("elicit approval of %s: %w", req.CallID, ctx.Err())
		}
		// The client could not ask: the call waits for docket resume
		// rather than failing or being decided for the user.
		return engine.Answer{}, fmt.Errorf("elicit approval of %s: %v: %w", req.CallID, err, engine.ErrNoDecision)
	}
	switch res.Action {
	case "accept":
		d := events.Approved
		if s, ok := res.Content["decision"].(string); ok && s != "" {
			d = events.ReviewDecision(s)
		}
		return engine.Answer{Decision: d, Source: events.SourceMCPElicitation}, nil
	case "decline":
		return engine.Answer{Decision: events.Denied, Source: events.SourceMCPElicitation, Feedback: "the MCP client's user declined"}, nil
	}
	// cancel: dismissed without a choice.
	return engine.Answer{}, engine.ErrNoDecision
}

// approvalMessage says what the client's user is asked, as plainly as the
// terminal's prompt: the command or patch, where, why, and what a yes
// allows.
func approvalMessage(req engine.ApprovalRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Docket asks to approve call %s (%s)", req.CallID, req.Kind)
	if req.Phase == events.PhaseRetry {
		b.WriteString(", a retry after the sandbox blocked it")
	}
	b.WriteString(".\n")
	if len(req.Command) > 0 {
		args := make([]string, len(req.Command))
		for i, a := range req.Command {
			args[i] = oneLine(a)
		}
		fmt.Fprintf(&b, "command: %s\n", strings.Join(args, " "))
	}
	if req.Cwd != "" {
		fmt.Fprintf(&b, "cwd: %s\n", oneLine(req.Cwd))
	}
	if req.Patch != "" {
		fmt.Fprintf(&b, "patch, each line after \"|\":\n%s", fenced(req.Patch))
	}
	if req.Reason != "" {
		if req.ModelJustification {
			// The client's words: fenced, as they may imitate Docket's.
			fmt.Fprintf(&b, "the client's justification, each line after \"|\":\n%s", fenced(req.Reason))
		} else {
			fmt.Fprintf(&b, "reason: %s\n", oneLine(req.Reason))
		}
	}
	switch {
	case req.Unsandboxed:
		b.WriteString("Approving runs it WITHOUT the sandbox.\n")
	case req.RetryUnsandboxed:
		b.WriteString("It runs in the sandbox; approving also lets Docket re-run it without the sandbox if the sandbox blocks it.\n")
	}
	return b.String()
}

var _ engine.Approver = elicitApprover{}
