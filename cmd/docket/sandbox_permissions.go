package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	ws "github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/egress"
	"github.com/docket-engine/docket/states/permissions"
)

// sandboxPlanFromProfile builds the plan of `docket sandbox --permissions
// NAME`: the configuration is loaded as a session in dir would load it
// (Docket's home, the trusted project layer, the managed requirements), so
// a profile is tried exactly as a session would run it, refusals included,
// and the plan is the session's (sessionPlan): the configured [sandbox]
// limits, Docket's home and the Codex home read in its place kept
// read-only, the hidden paths, the network through the egress proxy.
// --require-protected-paths adds to the configuration's, never removes.
func sandboxPlanFromProfile(name, dir string, protect bool) (events.SandboxPlan, string, *permissions.Resolved, error) {
	cwd, err := absDir(dir)
	if err != nil {
		return events.SandboxPlan{}, "", nil, usageErrorf("-C %s: %v", dir, err)
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return events.SandboxPlan{}, "", nil, usageErrorf("-C %s: not a directory", cwd)
	}
	cfg, err := config.Load(config.LoadOptions{Env: os.Getenv, Cwd: cwd, Flags: config.Flags{Permissions: &name}})
	if err != nil {
		return events.SandboxPlan{}, "", nil, &exitError{code: exitUsage, err: err}
	}
	sc := cfg.SessionConfig()
	sc.RequireProtectedPaths = sc.RequireProtectedPaths || protect
	plan, err := sessionPlan(cfg, sc, cwd)
	if err != nil {
		return events.SandboxPlan{}, "", nil, err
	}
	return plan, cwd, cfg.PermissionProfile, nil
}

// profileBridge is the egress proxy for a run under a profile whose
// network is on: the profile's rules decide, nobody is asked (a host no
// rule covers is refused, as under the approval policy never), and each
// connection is said on stderr when verbose. Nil for every other run.
func profileBridge(profile *permissions.Resolved, plan events.SandboxPlan, stderr io.Writer, verbose bool) sandbox.Bridge {
	if profile == nil || !plan.Egress {
		return nil
	}
	var mu sync.Mutex
	opts := egress.ProfileOptions(profile.Network, nil)
	opts.Record = func(ev egress.Event) {
		if !verbose && ev.Allowed {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		_, _ = io.WriteString(stderr, connectionLine(ev))
	}
	return egress.New(opts)
}

// connectionLine is what `docket sandbox -v` says of one proxy record: a
// connection allowed or refused, or a summary of the refusals counted past
// a call's first ones (host "" for the hosts past the summaries' own bound).
// The host is the sandboxed command's (a SOCKS5 name may hold any byte),
// and a refusal's rule may quote it: the line goes through safetext.
func connectionLine(ev egress.Event) string {
	return safetext.Line(connectionText(ev)) + "\n"
}

func connectionText(ev egress.Event) string {
	if ev.Refusals > 0 {
		what := "other hosts"
		if ev.Host != "" {
			what = fmt.Sprintf("%s:%d", ev.Host, ev.Port)
		}
		return fmt.Sprintf("docket sandbox: network: refused %s %s %d times (%s)", ev.Protocol, what, ev.Refusals, ev.Rule)
	}
	verdict := "refused"
	if ev.Allowed {
		verdict = "allowed"
	}
	return fmt.Sprintf("docket sandbox: network: %s %s %s:%d (%s)", verdict, ev.Protocol, ev.Host, ev.Port, ev.Rule)
}

// hidePlan adds the paths the permission profile's none rules hide to a
// sandboxed plan: globs expanded now, bounded, so what the plan (and the
// journal: a session records its plan) says is hidden is exactly what the
// sandbox covers. A session expands them once, when it starts. An
// expansion that fails closed refuses the run (exit 125). The unix
// sockets the profile's network sets to none that exist now are covered
// the same way: the sandbox already covers the sockets bound in docket's
// network namespace, and a none entry also covers one bound in another
// (a container's, another sandbox's), which docket cannot list.
func hidePlan(plan events.SandboxPlan, cfg *config.Config) (events.SandboxPlan, error) {
	r := cfg.PermissionProfile
	if r == nil || !plan.Sandboxed() {
		return plan, nil
	}
	patterns := r.HiddenPatterns()
	for _, u := range r.Network.UnixSockets {
		if _, err := os.Stat(u.Path); !u.Allow && err == nil {
			patterns = append(patterns, u.Path)
		}
	}
	if len(patterns) == 0 {
		return plan, nil
	}
	hidden, err := ws.HiddenPaths(patterns, r.GlobScanMaxDepth, plan.WritableRoots)
	if err != nil {
		return plan, &exitError{code: exitSandboxFailed, err: fmt.Errorf("permission profile %s: %w", r.Name, err)}
	}
	plan.Hidden = hidden
	return plan, nil
}
