package audit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
	"github.com/docket-engine/docket/states/policy"
	"github.com/docket-engine/docket/states/rules"
)

// why phrases, in one line, why a call ran without a sandbox: from the cause
// of its move into unsandboxed and the decision records behind it.
func (a *auditor) why(t *tracker) string {
	u := t.unsb
	if u.unrecord {
		return fmt.Sprintf("no recorded reason: it ran without a sandbox at seq %d without a transition into unsandboxed", u.seq)
	}
	pol := a.head.Policy
	if t.approvalPolicy != "" {
		pol.ApprovalPolicy = t.approvalPolicy
	}
	switch u.cause {
	case states.CauseUserApproved, states.CauseUserApprovedForSession, states.CauseUserAmendment:
		d := u.decision
		if d == nil {
			return fmt.Sprintf("cause %s, but no approving decision is recorded", u.cause)
		}
		if u.phase == events.PhaseRetry {
			return "sandbox denied it (" + denialSummary(u.denial) + "); " + whoDecided(d) + " " + verb(d.Decision, " the retry") + " at " + d.At
		}
		if u.askCause == string(states.CauseHookAsk) {
			return "a pre_tool hook asked for approval" + paren(u.askReason) + "; " + whoDecided(d) + " " + verb(d.Decision, " it") + " at " + d.At
		}
		if u.askCause == string(states.CauseEscalationRequested) {
			return "the model requested escalation" + paren(u.askReason) + "; " + whoDecided(d) + " " + verb(d.Decision, "") + " at " + d.At
		}
		s := whoDecided(d) + " " + verb(d.Decision, " it") + " at " + d.At + paren(u.askReason)
		if m := policy.SandboxMode(pol.SandboxMode); m == policy.DangerFullAccess || m == policy.ExternalSandbox {
			s += "; sandbox mode " + m.String() + " runs every call without a sandbox"
		}
		return s
	case states.CauseAlreadyApproved:
		if t.startedBy != "" {
			return fmt.Sprintf("a write to process %d, which call %s started without a sandbox (that call's answer says why); a write asks nothing of its own and runs under its process's plan", t.writesTo, t.startedBy)
		}
		s := "sandbox denied it (" + denialSummary(u.denial) + "); "
		if u.initial == nil {
			return s + "retried without the sandbox as already approved, but no approval is recorded"
		}
		return s + whoDecided(u.initial) + " had " + verb(u.initial.Decision, " the call") + " at " + u.initial.At + ", so the retry ran without asking again"
	case states.CauseSessionGrant:
		return a.grantWhy(t, u)
	case states.CauseRuleAllow:
		return a.ruleWhy(t, u)
	case states.CauseDangerFullAccess:
		if pol.Bypassed {
			return "THE USER TURNED OFF APPROVALS AND THE SANDBOX for the whole session (--dangerously-bypass-approvals-and-sandbox: approval policy never, sandbox danger-full-access)"
		}
		return "approval policy " + orDash(pol.ApprovalPolicy) + " with sandbox danger-full-access"
	case states.CauseExternalSandbox:
		return "approval policy " + orDash(pol.ApprovalPolicy) + " with sandbox external-sandbox (docket runs inside an outer sandbox)"
	case states.CauseOutOfProcess:
		if d := u.decision; d != nil {
			return "MCP tool runs out of process; " + verb(d.Decision, "") + " by " + whoDecided(d) + " at " + d.At
		}
		return "MCP tool runs out of process; no approval needed under approval policy " + orDash(pol.ApprovalPolicy)
	}
	return fmt.Sprintf("cause %s%s does not justify running without the sandbox", orDash(string(u.cause)), paren(u.reason))
}

// grantWhy names the earlier approval a session grant rests on, when the
// journal shows one for the same command and directory.
func (a *auditor) grantWhy(t *tracker, u *unsandboxedRun) string {
	for i := len(a.grants) - 1; i >= 0; i-- {
		g := a.grants[i]
		if g.seq >= u.seq || g.callID == t.c.CallID || !slices.Equal(g.command, t.c.Command) || g.cwd != t.c.Cwd {
			continue
		}
		if g.by == nil {
			return "session grant given for call " + g.callID
		}
		return "approved for the session by " + whoDecided(g.by) + " at " + g.by.At + " (call " + g.callID + ")"
	}
	return "a session grant the user gave earlier" + paren(u.reason)
}

// ruleWhy names the allow rules that let the command bypass the sandbox:
// the rules in force when the session started plus the amendments saved
// before the call ran.
func (a *auditor) ruleWhy(t *tracker, u *unsandboxedRun) string {
	set := a.rules()
	for _, am := range a.amended {
		if am.Seq >= u.seq || len(am.Pattern) == 0 {
			continue
		}
		alts := make([][]string, len(am.Pattern))
		for i, p := range am.Pattern {
			alts[i] = []string{p}
		}
		set = set.WithRule(rules.Rule{File: am.File, Pattern: alts, Decision: rules.Allow, Justification: "saved by the user for call " + am.CallID})
	}
	ev := set.Evaluate(t.c.Command)
	if !ev.AllAllowed() {
		return "an allow rule" + paren(u.reason)
	}
	var descs []string
	for _, m := range ev.Matched {
		if m.Decision != rules.Allow {
			continue
		}
		d := "prefix_rule(pattern=" + tokens(m.Pattern) + ")"
		if m.Line > 0 {
			d += fmt.Sprintf(" at %s:%d", m.File, m.Line)
		} else {
			d += " " + m.Justification
			if m.File != "" {
				d += " in " + m.File
			}
		}
		if !slices.Contains(descs, d) {
			descs = append(descs, d)
		}
	}
	if len(descs) == 1 {
		return "allow rule " + descs[0]
	}
	return "allow rules " + strings.Join(descs, ", ")
}

// rules loads the session's rule sources once. A source that fails to load
// is left out: the audit explains what it can.
func (a *auditor) rules() *rules.Set {
	if !a.rulesRead {
		a.rulesRead = true
		a.ruleSet, _ = rules.LoadSources(a.sources, rules.LoadOptions{Lenient: true})
	}
	return a.ruleSet
}

func tokens(p []string) string {
	out := make([]string, len(p))
	for i, s := range p {
		b, _ := json.Marshal(s)
		out[i] = string(b)
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// denialSummary says in a few words what the sandbox refused. Docket's
// sandbox lets a command read everywhere, so a file-system refusal on a path
// is a write.
func denialSummary(d *events.DenialEvidence) string {
	if d == nil {
		return "no denial evidence recorded"
	}
	head := d.Errno
	if head == "" {
		head = d.Signal
	}
	switch {
	case d.Path != "" && (head == "EROFS" || head == "EACCES" || head == "EPERM"):
		return head + " writing " + d.Path
	case d.Path != "" && head != "":
		return head + " on " + d.Path
	case head != "" && d.Reason != "":
		return head + ": " + d.Reason
	case head != "":
		return head
	case d.Reason != "":
		return d.Reason
	}
	return orDash(d.Message)
}

// whoDecided names who gave decision d, for a sentence.
func whoDecided(d *Decision) string { return who(d.Source, d.Client) }

// who names the source of a decision for a sentence; client names the MCP
// client for an answer given through elicitation.
func who(source events.DecisionSource, client string) string {
	switch source {
	case events.SourceMCPElicitation:
		if client == "" {
			return "an unnamed MCP client through elicitation"
		}
		return fmt.Sprintf("MCP client %q through elicitation", client)
	case events.SourceUser, events.SourceTerminal:
		return "user"
	case events.SourceFlag:
		return "user (--decisions)"
	case "":
		return "unknown source"
	}
	return source.String()
}

// verb phrases an approving decision about obj (" the retry", " it", or
// nothing).
func verb(decision events.ReviewDecision, obj string) string {
	switch decision {
	case events.ApprovedForSession:
		return "approved" + obj + " for the session"
	case events.ApprovedExecpolicyAmendment:
		return "approved" + obj + " and saved an allow rule"
	case events.Approved:
		return "approved" + obj
	}
	return "answered " + decision.String() + obj
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
