package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/docket-engine/docket/engine/rulesfile"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states"
	"github.com/docket-engine/docket/states/approval"
	"github.com/docket-engine/docket/states/cmdsafety"
	"github.com/docket-engine/docket/states/policy"
	"github.com/docket-engine/docket/states/rules"
)

// Amender saves an approved prefix rule (approved_execpolicy_amendment).
type Amender interface {
	Amend(pattern []string) (line, file string, written bool, err error)
}

// FileAmender appends amendments to $DOCKET_HOME/rules/default.rules.
type FileAmender struct{ Home string }

// Amend appends the rule under a file lock, once.
func (a FileAmender) Amend(pattern []string) (string, string, bool, error) {
	line, written, err := rulesfile.Amend(a.Home, pattern)
	return line, rules.DefaultRulesFile(a.Home), written, err
}

// NoopAmender records amendments without writing a file (replay).
type NoopAmender struct{}

// Amend returns the line it would write.
func (NoopAmender) Amend(pattern []string) (string, string, bool, error) {
	line, err := rules.FormatAllowRule(pattern)
	return line, "", false, err
}

// Decider is the session's view of the decision logic: policies, rules in
// force (with amendments), and session grants. It is safe for concurrent use.
type Decider struct {
	approval policy.ApprovalPolicy
	sandbox  policy.SandboxPolicy
	plan     events.SandboxPlan
	cwd      string
	amender  Amender

	mu    sync.Mutex
	rules *rules.Set
	store *approval.Store
	// project lists rule files that came from the workspace.
	project map[string]bool
	// allowed are the prefix rules added during the session, in order,
	// for a subagent to inherit.
	allowed [][]string
	// profile is the permission profile the user switched to
	// (/permissions), "" until a switch.
	profile string
}

// NewDecider builds the decision logic for a session from its recorded
// configuration and rule sources. Empty policies take DESIGN.md's defaults
// (on-request, read-only).
func NewDecider(sc events.SessionConfig, cwd string, plan events.SandboxPlan, srcs []events.RuleSource, home string, amender Amender) (*Decider, error) {
	ap, sp, err := policy.FromConfig(sc)
	if err != nil {
		return nil, err
	}
	set, err := rules.LoadSources(srcs, rules.LoadOptions{})
	if err != nil {
		return nil, err
	}
	if amender == nil {
		amender = FileAmender{Home: home}
	}
	project := map[string]bool{}
	for _, src := range srcs {
		if src.Project {
			project[src.Path] = true
		}
	}
	return &Decider{approval: ap, sandbox: sp, plan: plan, cwd: cwd, amender: amender, rules: set, store: approval.NewStore(), project: project}, nil
}

// RulesDigest fingerprints the rule sources in force.
func RulesDigest(srcs []events.RuleSource) string {
	h := sha256.New()
	for _, s := range srcs {
		fmt.Fprintf(h, "%s\x00%d\x00%s", s.Path, len(s.Text), s.Text)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (d *Decider) ruleSet() *rules.Set {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rules
}

// ExecRequirement decides a shell command's requirement.
func (d *Decider) ExecRequirement(argv []string, escalated bool, justification string) policy.Requirement {
	perms := policy.UseDefault
	if escalated {
		perms = policy.RequireEscalated
	}
	sp, _ := d.Sandbox()
	return policy.ExecRequirement(policy.ExecInput{Argv: argv, Approval: d.Approval(), Sandbox: sp,
		Rules: d.ruleSet(), SandboxPermissions: perms, Justification: justification, ProjectRules: d.project})
}

// PatchRequirement decides an apply_patch call's requirement from the
// absolute paths it touches.
func (d *Decider) PatchRequirement(paths []string) policy.Requirement {
	sp, plan := d.Sandbox()
	return policy.PatchRequirement(paths, d.Approval(), sp, plan)
}

// MCPRequirement decides an MCP tool call's requirement from whether the
// server's settings and the tool's hints ask for approval.
func (d *Decider) MCPRequirement(needsApproval bool, reason string) policy.Requirement {
	return policy.MCPRequirement(d.Approval(), needsApproval, reason)
}

// DefaultRequirement is the fallback table for tools with no rule of their own.
func (d *Decider) DefaultRequirement() policy.Requirement {
	sp, _ := d.Sandbox()
	return policy.DefaultRequirement(d.Approval(), sp.Mode)
}

// Approval returns the session's approval policy.
func (d *Decider) Approval() policy.ApprovalPolicy {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.approval
}

// Sandbox returns the sandbox policy and plan in force now.
func (d *Decider) Sandbox() (policy.SandboxPolicy, events.SandboxPlan) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sandbox, d.plan
}

// setSandbox changes the sandbox for the calls that follow (a journaled
// switch to the permission profile named profile).
func (d *Decider) setSandbox(profile string, sp policy.SandboxPolicy, plan events.SandboxPlan) {
	d.mu.Lock()
	d.profile, d.sandbox, d.plan = profile, sp, plan
	d.mu.Unlock()
}

// SwitchedProfile is the permission profile the user switched to, "" when
// the session runs under the one it started with.
func (d *Decider) SwitchedProfile() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.profile
}

// setApproval changes the approval policy for the decisions that follow
// (a journaled policy_changed record).
func (d *Decider) setApproval(ap policy.ApprovalPolicy) {
	d.mu.Lock()
	d.approval = ap
	d.mu.Unlock()
}

// ExecKey is the approval key of a shell command.
func (d *Decider) ExecKey(argv []string, cwd, perms string) string {
	return approval.ExecKey(argv, cwd, perms)
}

// PatchKey is the approval key of one file an apply_patch call touches.
func (d *Decider) PatchKey(path string) string { return approval.PatchKey(path) }

// MCPKey is the approval key of an MCP tool.
func (d *Decider) MCPKey(server, tool string) string { return approval.MCPKey(server, tool) }

// AllGranted reports whether every key was granted for the session.
func (d *Decider) AllGranted(keys []string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(keys) > 0 && d.store.AllGranted(keys)
}

// Grant grants each key for the rest of the session.
func (d *Decider) Grant(keys []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.store.Grant(keys...)
}

// Amend saves an allow rule for pattern and makes it effective at once.
func (d *Decider) Amend(callID string, pattern []string) (events.RuleAmended, error) {
	line, file, written, err := d.amender.Amend(pattern)
	if err != nil {
		return events.RuleAmended{}, err
	}
	d.AddAllowRule(pattern)
	return events.RuleAmended{CallID: callID, Pattern: pattern, Line: line, File: file, Written: written}, nil
}

// AddAllowRule adds an allow prefix rule to the rules in force.
func (d *Decider) AddAllowRule(pattern []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.rules = d.rules.WithAllowRule(pattern)
	d.allowed = append(d.allowed, append([]string(nil), pattern...))
}

// AllowRules returns the prefix rules added during the session, in order.
func (d *Decider) AllowRules() [][]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([][]string(nil), d.allowed...)
}

// SandboxFor selects the sandbox for a call that may run, by
// policy.SelectSandbox: approvedBy is the cause of the approval that let it
// run ("" when nothing was asked). It returns the session's plan or no
// sandbox, and the cause for the transition.
func (d *Decider) SandboxFor(p *PreparedCall, approvedBy states.Cause) (events.SandboxPlan, states.Cause) {
	sp, plan := d.Sandbox()
	sel := policy.SelectSandbox(policy.SelectInput{Mode: sp.Mode, Requirement: p.Requirement,
		EscalationRequested: p.Escalated, ApprovedBy: approvedBy, OutOfProcess: p.OutOfProcess})
	if !sel.Sandboxed {
		return events.SandboxPlan{Mode: events.SandboxNone}, sel.Cause
	}
	return plan, sel.Cause
}

// RetryAllowed applies the retry rule after a sandbox denial.
func (d *Decider) RetryAllowed(p *PreparedCall) (bool, string) {
	kind := policy.ToolShell
	if p.ApprovalKind == events.ApprovalPatch {
		kind = policy.ToolApplyPatch
	}
	ok := p.Retryable && policy.RetryAllowed(d.Approval(), kind)
	if ok {
		return true, ""
	}
	return false, fmt.Sprintf("under approval policy %s the sandbox's refusal is returned to the model", d.Approval())
}

// Classify says whether a failed sandboxed run was a sandbox denial, with
// relative paths in error messages read against the call's cwd. The engine
// is the one owner of this verdict (sandbox.Run leaves Denial empty and
// whatever a runner reports is cleared), so a replay with a changed
// classifier shows the difference at the exec_outcome record.
func (d *Decider) Classify(out events.ExecOutcome, plan events.SandboxPlan, cwd string) *events.DenialEvidence {
	return policy.ClassifyDenial(out, plan, cwd)
}

// Parsed splits a simple shell script into its commands, for display.
func (d *Decider) Parsed(argv []string) [][]string {
	cmds, ok := cmdsafety.Commands(argv)
	if !ok {
		return nil
	}
	return cmds
}
