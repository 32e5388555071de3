package engine

import (
	"fmt"
	"slices"

	"github.com/docket-engine/docket/engine/prompt"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
)

// SetPermissions switches the session's permission profile for the turns
// that follow (the interactive /permissions command): the sandbox policy
// and plan of ch replace the session's. Like an approval policy change it
// is a durable policy_changed input record before it takes effect (resume
// and verify replay apply it at the same point), carrying the developer
// message that tells the model the sandbox it now works in. The caller
// builds ch from the configuration, where the managed requirements were
// checked. eg is the egress proxy's configuration for the profile when
// its plan sends the network through the proxy (ch.Plan.Egress): the
// proxy follows the switched profile's rules for the calls that follow;
// a switch to a plan without it leaves later calls no network. Call it
// between turns.
func (s *Session) SetPermissions(ch events.PermissionsChange, eg *Egress, source events.DecisionSource) error {
	if ch.Plan.Egress && eg == nil {
		if _, err := sandboxOfChange(ch); err != nil {
			return err
		}
		return fmt.Errorf("engine: permission profile %s: its plan sends the network through the egress proxy, and no proxy rules were given", ch.Profile)
	}
	if !ch.Plan.Egress {
		eg = nil
	}
	// The record carries the proxy's rules: resume and replay rebuild the
	// proxy from it, whatever the configuration names then.
	ch.Network = networkRecord(eg)
	// The switch is checked and its sandbox derived once: the model's
	// message names the sandbox putSandbox puts in force.
	sw, err := s.sandboxChange(&ch, eg)
	if err != nil {
		return err
	}
	if s.pending != nil {
		return ErrPolicyTurnPending
	}
	ap := s.decider.Approval()
	msg, err := prompt.ProfileUpdate(prompt.Input{Cwd: s.cfg.Cwd, ApprovalPolicy: ap.String(), SandboxMode: sw.sp.Mode.String(),
		WritableRoots: ch.Plan.WritableRoots, NetworkAccess: sw.sp.NetworkAccess, EgressProxy: ch.Plan.Egress}, ch.Previous, ch.Profile)
	if err != nil {
		return fmt.Errorf("engine: permission profile: the model's message: %w", err)
	}
	rec := events.PolicyChanged{ApprovalPolicy: ap.String(), Previous: ap.String(), Source: source, Message: msg, Permissions: &ch}
	return s.commitPolicyChange(ap, rec, sw)
}

// sandboxOfChange is the sandbox policy a profile switch stands for.
func sandboxOfChange(ch events.PermissionsChange) (policy.SandboxPolicy, error) {
	mode, err := policy.ParseSandboxMode(ch.SandboxMode)
	if err != nil {
		return policy.SandboxPolicy{}, fmt.Errorf("engine: permission profile %s: %w", ch.Profile, err)
	}
	return policy.SandboxPolicy{Mode: mode, WritableRoots: append([]string(nil), ch.WritableRoots...), NetworkAccess: ch.NetworkAccess,
		ExcludeTmpdirEnvVar: ch.ExcludeTmpdirEnvVar, ExcludeSlashTmp: ch.ExcludeSlashTmp}, nil
}

// egressOfChange is the egress proxy's configuration a recorded switch
// stands for (resume, replay): its recorded rules (ch.Network). A record
// from before they were recorded has none: the proxy then follows
// Config.Egress if that names the same profile, and otherwise has no
// rules, so a call under the plan is refused rather than sent out under
// another profile's.
func (s *Session) egressOfChange(ch *events.PermissionsChange) (*Egress, error) {
	switch {
	case !ch.Plan.Egress:
		return nil, nil
	case ch.Network != nil:
		eg, err := egressOfRecord(ch.Network, s.cfg.Egress)
		if err != nil {
			return nil, fmt.Errorf("engine: permission profile %s: %w", ch.Profile, err)
		}
		return eg, nil
	case s.cfg.Egress != nil && s.cfg.Egress.Profile == ch.Profile:
		return s.cfg.Egress, nil
	}
	return nil, nil
}

// sandboxSwitch is a profile switch ready to put in force (putSandbox).
type sandboxSwitch struct {
	ch *events.PermissionsChange
	sp policy.SandboxPolicy
	eg *Egress
}

// sandboxChange checks a profile switch (ch; nil: none, and a nil
// switch) and builds what it puts in force: its sandbox policy, and eg
// as the egress proxy's rules, or, for a recorded switch (resume,
// replay: eg nil), the proxy its record stands for (egressOfChange). The
// recorded rules are rebuilt either way, so a live switch whose record
// resume could not read back is refused.
func (s *Session) sandboxChange(ch *events.PermissionsChange, eg *Egress) (*sandboxSwitch, error) {
	if ch == nil {
		return nil, nil
	}
	sp, err := sandboxOfChange(*ch)
	if err != nil {
		return nil, err
	}
	recorded, err := s.egressOfChange(ch)
	if err != nil {
		return nil, err
	}
	switch {
	case !ch.Plan.Egress:
		eg = nil
	case eg == nil:
		eg = recorded
	}
	return &sandboxSwitch{ch: ch, sp: sp, eg: eg}, nil
}

// putSandbox puts a checked switch in force for the calls that follow
// (nil: no switch).
func (s *Session) putSandbox(sw *sandboxSwitch) {
	if sw == nil {
		return
	}
	s.decider.setSandbox(sw.ch.Profile, sw.sp, sw.ch.Plan)
	s.egress.set(sw.eg)
}

// withSandbox is sc with the sandbox keys of sp.
func withSandbox(sc events.SessionConfig, sp policy.SandboxPolicy) events.SessionConfig {
	sc.SandboxMode = sp.Mode.String()
	// Shared, not copied on every call's env(): what an Env holds is read,
	// never changed (narrowConfig and narrowPlan copy what they change, and
	// Env.Plan's slices were always the decider's). Clipped, so an append
	// cannot write into the decider's array.
	sc.WritableRoots = slices.Clip(sp.WritableRoots)
	sc.NetworkAccess = sp.NetworkAccess
	sc.ExcludeTmpdirEnvVar, sc.ExcludeSlashTmp = sp.ExcludeTmpdirEnvVar, sp.ExcludeSlashTmp
	return sc
}

// PermissionProfile is the permission profile the user switched to with
// /permissions (journaled), "" while the session runs under the one it
// started with.
func (s *Session) PermissionProfile() string { return s.decider.SwitchedProfile() }

// SandboxMode is the sandbox mode in force now.
func (s *Session) SandboxMode() string {
	sp, _ := s.decider.Sandbox()
	return sp.Mode.String()
}

// Plan is the sandbox plan in force now: the session's own, or the one a
// journaled permission profile switch put in its place (resumed too).
func (s *Session) Plan() events.SandboxPlan {
	_, plan := s.decider.Sandbox()
	return plan
}
