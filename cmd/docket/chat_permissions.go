package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/cmd/docket/internal/tui"
	"github.com/docket-engine/docket/engine/session"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
)

// builtinProfiles are Codex's built-in permission profiles.
var builtinProfiles = []string{":read-only", ":workspace", ":danger-full-access"}

// Permissions describes the permission profile in force and the ones the
// user may switch to (/permissions).
func (b *chatBackend) Permissions() (tui.PermissionsInfo, error) {
	s := b.session()
	if s == nil {
		return tui.PermissionsInfo{}, errors.New("no session is open")
	}
	info := tui.PermissionsInfo{Profile: b.cfg.PermissionsSelection.Profile, Why: b.cfg.PermissionsSelection.Why, SandboxMode: s.SandboxMode()}
	if p := s.PermissionProfile(); p != "" {
		info.Profile, info.Why = p, "switched with /permissions (journaled)"
	}
	if info.Why == "" {
		info.Why = "the sandbox_mode keys (no permission profile)"
	}
	info.Hidden = slices.Clone(s.Plan().Hidden)
	names := slices.Clone(builtinProfiles)
	var own []string
	for name := range b.cfg.Permissions {
		own = append(own, name)
	}
	sort.Strings(own)
	info.Profiles = append(names, own...)
	return info, nil
}

// SetPermissions switches the session to the permission profile name: the
// configuration is loaded again with the profile chosen as --permissions
// would choose it, so the managed requirements refuse what they forbid
// (the error names the requirement) and a profile the sandbox cannot
// enforce is refused as at start; the plan is a session's (sessionPlan)
// and is journaled with the switch before any call runs under it.
func (b *chatBackend) SetPermissions(name string) (string, error) {
	s := b.session()
	if s == nil {
		return "", errors.New("no session is open")
	}
	name = strings.TrimSpace(name)
	b.mu.Lock()
	cwd := b.cwdOf
	b.mu.Unlock()
	ap := s.ApprovalPolicy()
	f := b.flags
	cfg, err := config.Load(config.LoadOptions{Home: f.home, Profile: f.profile, Env: os.Getenv, Overrides: f.overrides, Cwd: cwd,
		Flags: config.Flags{Permissions: &name, ApprovalPolicy: &ap}, RequirementsFiles: testRequirementsFiles()})
	if err != nil {
		return "", fmt.Errorf("permission profile %s: %w", name, err)
	}
	if cfg.PermissionProfile == nil {
		return "", fmt.Errorf("permission profile %s: the configuration chose no profile (%s)", name, cfg.PermissionsSelection.Why)
	}
	sc := cfg.SessionConfig()
	if len(b.addDirs) > 0 && sc.SandboxMode == policy.WorkspaceWrite.String() {
		sc.WritableRoots = append(sc.WritableRoots, b.addDirs...)
	}
	// The plan a session under this profile runs under, from the one
	// builder a session's start and `docket sandbox --permissions` use;
	// the proxy follows this profile's rules from now on.
	plan, err := sessionPlan(cfg, sc, cwd)
	if err != nil {
		return "", err
	}
	plan, eg := session.RouteNetwork(plan, sessionEgress(cfg))
	prev := s.PermissionProfile()
	if prev == "" {
		prev = b.cfg.PermissionsSelection.Profile
	}
	ch := events.PermissionsChange{Profile: name, Previous: prev, Why: fmt.Sprintf("permission profile %s chosen by /permissions", name),
		SandboxMode: sc.SandboxMode, WritableRoots: sc.WritableRoots, NetworkAccess: sc.NetworkAccess,
		ExcludeTmpdirEnvVar: sc.ExcludeTmpdirEnvVar, ExcludeSlashTmp: sc.ExcludeSlashTmp, Plan: plan}
	if err := s.SetPermissions(ch, eg, events.SourceUser); err != nil {
		return "", err
	}
	return profileSummary(name, sc.SandboxMode, plan), nil
}

// profileSummary says in one line what a profile now allows.
func profileSummary(name, mode string, plan events.SandboxPlan) string {
	s := fmt.Sprintf("permission profile is now %s for the rest of this session (journaled; the model is told with its next request): sandbox %s", name, mode)
	if len(plan.Hidden) > 0 {
		s += fmt.Sprintf(", %d path(s) hidden", len(plan.Hidden))
	}
	return s + ", network " + plan.NetworkWords()
}
