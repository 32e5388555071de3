package main

import (
	"os"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	ws "github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/states/permissions"
	"github.com/docket-engine/docket/states/policy"
)

// sandboxPlanFromProfile builds the plan of `docket sandbox --permissions
// NAME`: the configuration is loaded as a session in dir would load it
// (Docket's home, the trusted project layer, the managed requirements), so
// a profile is tried exactly as a session would run it, refusals included.
func sandboxPlanFromProfile(from sandboxCaller, name, dir string, protect bool) (events.SandboxPlan, string, *permissions.Resolved, error) {
	cwd, err := from.abs(dir)
	if err != nil {
		return events.SandboxPlan{}, "", nil, usageErrorf("-C %s: %v", dir, err)
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return events.SandboxPlan{}, "", nil, usageErrorf("-C %s: not a directory", cwd)
	}
	getenv := from.getenv
	cfg, err := config.Load(config.LoadOptions{Env: getenv, Cwd: cwd, Flags: config.Flags{Permissions: &name}})
	if err != nil {
		return events.SandboxPlan{}, "", nil, &exitError{code: exitUsage, err: err}
	}
	ww := cfg.SandboxWorkspaceWrite
	sp := policy.SandboxPolicy{Mode: policy.SandboxMode(cfg.SandboxMode), WritableRoots: ww.WritableRoots, NetworkAccess: ww.NetworkAccess,
		ExcludeTmpdirEnvVar: ww.ExcludeTmpdirEnvVar, ExcludeSlashTmp: ww.ExcludeSlashTmp}
	plan := ws.SandboxPlan(sp, cwd, getenv("TMPDIR"), protect)
	if plan.Sandboxed() {
		plan.Network = ww.NetworkAccess
		plan.Limits = sandbox.DefaultLimits()
		plan = ws.ProtectHome(plan, cfg.Home)
	}
	return plan, cwd, cfg.PermissionProfile, nil
}
