package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	ws "github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/states/permissions"
	"github.com/docket-engine/docket/states/policy"
)

// exitSandboxFailed is `docket sandbox`'s status when the sandbox itself
// failed and the command never ran (as for env(1) and timeout(1)).
const exitSandboxFailed = 125

func newSandboxCmd(a *app) *cobra.Command {
	var (
		mode     string
		roots    []string
		network  bool
		dir      string
		protect  bool
		showPlan bool
		explain  bool
		perms    string
	)
	c := &cobra.Command{
		Use:   "sandbox [--sandbox MODE] [--writable-root DIR]... [--network] [-C DIR] [--explain] -- CMD [ARG...]",
		Short: "Run one command under the sandbox the flags describe",
		Long: `Run one command under the Docket sandbox and exit with its status
(128+N when it was killed by signal N). Stdin is /dev/null. Exit 125 means
the sandbox could not be set up and the command did not run; 2 is a usage
error.

Modes: read-only (default; nothing is writable but /dev/null),
workspace-write (the working directory, each --writable-root, /tmp and
$TMPDIR are writable; .git, .docket and .agents under each stay read-only),
danger-full-access (no sandbox).

--explain says in words what each layer stops and what each missing one
costs: without a command, for the layers this machine would give the plan
(a forecast, on stdout, exit 0; 125 when the sandbox would be refused);
with one, for the layers the run enforced, on stderr after the command.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if explain {
				return nil
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var profile *permissions.Resolved
			plan, cwd, err := events.SandboxPlan{}, "", error(nil)
			if perms != "" {
				if cmd.Flags().Changed("sandbox") || len(roots) > 0 || network {
					return usageErrorf("--permissions names the whole sandbox: not with --sandbox, --writable-root or --network")
				}
				plan, cwd, profile, err = sandboxPlanFromProfile(perms, dir, protect)
			} else {
				plan, cwd, err = sandboxPlanFromFlags(mode, roots, network, dir, protect)
			}
			if err != nil {
				return err
			}
			if explain && len(args) == 0 && profile != nil {
				fmt.Fprintln(a.stdout, strings.Join(profile.Explain(), "\n"))
			}
			if explain && len(args) == 0 {
				caps := sandbox.Probe()
				if err := writeForecast(a.stdout, plan, caps); err != nil {
					return err
				}
				if caps.Check(plan) != nil {
					return &exitError{code: exitSandboxFailed}
				}
				return nil
			}
			if showPlan {
				// The network in the words the audit uses, quoted: a
				// profile's proxied network is not "false".
				fmt.Fprintf(a.stderr, "docket sandbox: mode=%s network=%q writable=%v read-only=%v\n",
					plan.Mode, plan.NetworkWords(), plan.WritableRoots, plan.ReadOnlySubpaths)
			}
			// One process per call: no server, no kept walk, nothing that
			// outlives this call (docs/decisions.md, issue 26).
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// The stubs this call makes are recorded in docket's home, so
			// that a killed `docket sandbox` leaves nothing the next start
			// does not remove (issue 27).
			var records string
			if home, err := resolveHome(""); err == nil {
				records = filepath.Join(home, "stubs")
			}
			out, err := sandbox.Run(ctx, sandbox.Request{
				Argv:        args,
				Cwd:         cwd,
				Plan:        plan,
				StubRecords: records,
				Bridge:      profileBridge(profile, plan, a.stderr, showPlan),
				// The CLI streams everything and keeps little.
				OutputCap: 1,
				OnOutput: func(stream string, chunk []byte) {
					if stream == "stdout" {
						// The command's output goes to the terminal as it
						// comes; a terminal that stopped reading cannot be told.
						_, _ = a.stdout.Write(chunk)
					} else {
						_, _ = a.stderr.Write(chunk)
					}
				},
			})
			var ue *sandbox.UnavailableError
			switch {
			case err == nil:
			case errors.Is(err, context.Canceled) && !errors.As(err, &ue):
				// Interrupted: the command was stopped; report how it ended.
				return &exitError{code: out.ExitCode}
			default:
				// Unavailable or failed sandbox: the command did not run.
				return &exitError{code: exitSandboxFailed, err: err}
			}
			if showPlan {
				fmt.Fprintf(a.stderr, "docket sandbox: layers=%s exit=%d\n", strings.Join(out.Layers, ","), out.ExitCode)
			}
			if explain {
				if err := writeEnforced(a.stderr, plan, out); err != nil {
					return err
				}
			}
			if out.ExitCode != 0 {
				return &exitError{code: out.ExitCode}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVarP(&mode, "sandbox", "s", policy.ReadOnly.String(), "sandbox mode: read-only, workspace-write or danger-full-access")
	f.StringArrayVar(&roots, "writable-root", nil, "an extra writable directory (workspace-write); repeatable")
	f.BoolVar(&network, "network", false, "allow network access")
	f.StringVarP(&dir, "cd", "C", "", "working directory and workspace root (default: the current directory)")
	f.BoolVar(&protect, "require-protected-paths", false, "fail when .git/.docket/.agents/.codex cannot be made read-only")
	f.BoolVar(&showPlan, "verbose", false, "print the plan and the layers enforced to stderr")
	f.BoolVar(&explain, "explain", false, "say in words what each layer stops: without a command, what this machine would enforce; with one, what the run enforced")
	f.StringVar(&perms, "permissions", "", "run under a permission profile (:read-only, :workspace, :danger-full-access or [permissions.NAME] from config)")
	f.SetInterspersed(false)
	return c
}

// sandboxPlanFromFlags builds the plan the flags describe, with the same
// writable-roots computation a session uses (workspace.SandboxPlan).
func sandboxPlanFromFlags(mode string, roots []string, network bool, dir string, protect bool) (events.SandboxPlan, string, error) {
	cwd, err := absDir(dir)
	if err != nil {
		return events.SandboxPlan{}, "", usageErrorf("-C %s: %v", dir, err)
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return events.SandboxPlan{}, "", usageErrorf("-C %s: not a directory", cwd)
	}
	if mode == events.SandboxNone.String() {
		// The plan's spelling of "no sandbox" is accepted on the command line.
		mode = policy.DangerFullAccess.String()
	}
	m, err := policy.ParseSandboxMode(mode)
	if err != nil || m == policy.ExternalSandbox {
		return events.SandboxPlan{}, "", usageErrorf("--sandbox %q: want read-only, workspace-write or danger-full-access", mode)
	}
	if len(roots) > 0 && m != policy.WorkspaceWrite {
		return events.SandboxPlan{}, "", usageErrorf("--writable-root needs --sandbox workspace-write")
	}
	abs := make([]string, 0, len(roots))
	for _, r := range roots {
		a, err := filepath.Abs(r)
		if err != nil {
			return events.SandboxPlan{}, "", usageErrorf("--writable-root %s: %v", r, err)
		}
		if st, err := os.Stat(a); err != nil || !st.IsDir() {
			return events.SandboxPlan{}, "", usageErrorf("--writable-root %s: not a directory", r)
		}
		abs = append(abs, a)
	}
	plan := ws.SandboxPlan(policy.SandboxPolicy{Mode: m, WritableRoots: abs, NetworkAccess: network}, cwd, os.Getenv("TMPDIR"), protect)
	if plan.Sandboxed() {
		plan.Network = network
		// No configuration here: the built-in limits, and docket's home
		// kept read-only like in a session.
		plan.Limits = sandbox.DefaultLimits()
		if home, err := resolveHome(""); err == nil {
			plan = ws.ProtectHome(plan, home)
		}
	}
	return plan, cwd, nil
}

// absDir makes dir absolute; "" is the working directory.
func absDir(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	return filepath.Abs(dir)
}
