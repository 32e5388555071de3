package policy

import (
	"fmt"

	"github.com/docket-engine/docket/states/cmdsafety"
	"github.com/docket-engine/docket/states/rules"
)

// ExecInput is everything the requirement of a shell call depends on.
type ExecInput struct {
	Argv               []string
	Approval           ApprovalPolicy
	Sandbox            SandboxPolicy
	Rules              *rules.Set // nil: no rules
	SandboxPermissions SandboxPermissions
	Justification      string
	// ProjectRules names the rules files that came from the workspace
	// (<project>/.docket/rules): their allow rules may skip the prompt but
	// never lift the sandbox; only the user's own rules may.
	ProjectRules map[string]bool
}

// ExecRequirement decides a shell call's requirement by DESIGN.md section 3's
// ordered list; the first step that applies wins:
//
//  1. rules: forbidden → Forbidden; prompt → NeedsApproval (Forbidden under
//     never); every command allowed → Skip bypassing the sandbox;
//  2. an escalation request under a restricting mode → NeedsApproval with the
//     model's justification (Forbidden under never);
//  3. known-safe (commands allowed by a rule count as safe) → Skip;
//  4. dangerous → NeedsApproval; Forbidden under never, except that
//     danger-full-access and external-sandbox fall through to step 5;
//  5. untrusted → NeedsApproval; on-failure, on-request, never → Skip.
func ExecRequirement(in ExecInput) Requirement {
	approval, mode := normalize(in.Approval, in.Sandbox.Mode)
	// One analysis answers every question below from one parse of the script.
	sc := cmdsafety.Analyze(in.Argv)
	ev := in.Rules.EvaluateScript(sc)
	r := Requirement{
		Rules:     ev,
		KnownSafe: sc.KnownSafe(),
		Dangerous: sc.Dangerous(),
	}

	// 1. Rules.
	switch ev.Decision {
	case rules.Forbidden:
		m, _ := ev.Strictest()
		r.Kind, r.Cause, r.Reason = Forbidden, CauseRuleForbidden, ruleReason("forbidden by rule", m)
		return r
	case rules.Prompt:
		m, _ := ev.Strictest()
		r.Cause = CauseRulePrompt
		if approval == Never {
			r.Kind, r.Reason = Forbidden, ruleReason("approval required by rule", m)+"; the approval policy is never"
			return r
		}
		r.Kind, r.Reason = NeedsApproval, ruleReason("approval required by rule", m)
		return r
	}
	if ev.AllAllowed() {
		m, _ := ev.Strictest()
		r.Kind, r.Cause, r.bypassSandbox, r.Reason = Skip, CauseRuleAllow, true, ruleReason("allowed by rule", m)
		if allowedByProject(ev, in.ProjectRules) {
			// A repository can ship .docket/rules; what it allows may skip
			// the prompt, but only the user's own rules may lift the sandbox.
			r.bypassSandbox = false
			r.Reason += " (a project rule: it runs inside the sandbox)"
		}
		return r
	}

	proposal := proposeAmendment(ev, sc)

	// 2. The model asked to run outside the sandbox.
	if in.SandboxPermissions == RequireEscalated && mode.Restricting() {
		reason := in.Justification
		if reason == "" {
			reason = "the model asked to run this command without the sandbox"
		}
		r.Cause = CauseEscalationRequested
		if approval == Never {
			r.Kind, r.Reason = Forbidden, reason+"; escalation needs approval but the approval policy is never"
			return r
		}
		r.Kind, r.Reason, r.ProposedAmendment = NeedsApproval, reason, proposal
		return r
	}

	// 3. Known-safe: every command is known-safe or explicitly allowed.
	if allSafeOrAllowed(ev, sc) {
		r.Kind, r.Cause, r.Reason, r.ProposedAmendment = Skip, CauseKnownSafe, "known-safe command", proposal
		return r
	}

	// 4. Dangerous.
	if dangerous(ev, sc) && !(approval == Never && !mode.Restricting()) {
		r.Cause = CauseDangerousCommand
		reason := "the command forcibly removes files (rm -f)"
		if approval == Never {
			r.Kind, r.Reason = Forbidden, reason+"; it needs approval but the approval policy is never"
			return r
		}
		r.Kind, r.Reason, r.ProposedAmendment = NeedsApproval, reason, proposal
		return r
	}

	// 5. By policy.
	if approval == Untrusted {
		r.Kind, r.Cause, r.Reason, r.ProposedAmendment = NeedsApproval, CauseUntrustedPolicy,
			"approval policy is untrusted and the command is not known-safe", proposal
		return r
	}
	r.Kind, r.Cause, r.ProposedAmendment = Skip, CausePolicySkip, proposal
	return r
}

// normalize fails closed on unknown values: an unknown approval policy asks
// like untrusted, an unknown mode confines like read-only.
func normalize(p ApprovalPolicy, m SandboxMode) (ApprovalPolicy, SandboxMode) {
	switch p {
	case Untrusted, OnFailure, OnRequest, Never:
	default:
		p = Untrusted
	}
	switch m {
	case ReadOnly, WorkspaceWrite, DangerFullAccess, ExternalSandbox:
	default:
		m = ReadOnly
	}
	return p, m
}

// allowedByProject reports whether any allow rule behind an evaluation came
// from a workspace rules file.
func allowedByProject(ev rules.Evaluation, project map[string]bool) bool {
	if len(project) == 0 {
		return false
	}
	for _, seg := range ev.Segments {
		for _, m := range seg.Matched {
			if m.Decision == rules.Allow && project[m.File] {
				return true
			}
		}
	}
	for _, m := range ev.Matched {
		if m.Decision == rules.Allow && project[m.File] {
			return true
		}
	}
	return false
}

func ruleReason(what string, m rules.Match) string {
	s := fmt.Sprintf("%s %s:%d", what, m.File, m.Line)
	if m.Justification != "" {
		s += ": " + m.Justification
	}
	return s
}

// allSafeOrAllowed reports whether each segment is explicitly allowed or a
// known-safe plain command. ev is sc's evaluation: its segments are sc's,
// index for index.
func allSafeOrAllowed(ev rules.Evaluation, sc *cmdsafety.Script) bool {
	if len(ev.Segments) == 0 {
		return false
	}
	for i, s := range ev.Segments {
		if s.Allowed() {
			continue
		}
		if !ev.Plain || !sc.Segment(i).KnownSafe() {
			return false
		}
	}
	return true
}

// dangerous reports whether a segment no rule matched forcibly removes files.
func dangerous(ev rules.Evaluation, sc *cmdsafety.Script) bool {
	for i, s := range ev.Segments {
		if s.Decision == rules.None && sc.Segment(i).Dangerous() {
			return true
		}
	}
	return false
}

// proposeAmendment picks the first segment no rule allowed that is not
// known-safe (else the first not allowed) and proposes it, unless the script
// is dynamic or the prefix over-broad.
func proposeAmendment(ev rules.Evaluation, sc *cmdsafety.Script) []string {
	if !ev.Plain {
		return nil
	}
	pick := -1
	for i, s := range ev.Segments {
		if s.Allowed() {
			continue
		}
		if pick < 0 {
			pick = i
		}
		if !sc.Segment(i).KnownSafe() {
			pick = i
			break
		}
	}
	if pick < 0 {
		return nil
	}
	return rules.ProposeAmendmentScript(sc.Segment(pick))
}
