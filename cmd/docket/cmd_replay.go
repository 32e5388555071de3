package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/replay"
	"github.com/spf13/cobra"
)

// replayFlags are replay's flags.
type replayFlags struct {
	home, rules                    string
	live, yes, keepScratch, asJSON bool
}

func newReplayCmd(a *app) *cobra.Command {
	var f replayFlags
	c := &cobra.Command{
		Use:   "replay SESSION|FILE [--live --yes [--keep-scratch]] [--rules current] [--json]",
		Short: "Verify replay (default) or live replay; exit 1 on divergence",
		Long: `Verify replay re-drives the engine over the journal's recorded inputs and
checks that every decision comes out as recorded; nothing runs. With
--rules current it uses the rules files that load now instead of the
recorded ones, and stops at the first decision they change.

Live replay (--live) runs the recorded commands again in a scratch copy of
the workspace and reports per call where the outcome now differs. Every
command runs under the sandbox with the scratch area as its only writable
root and the network off, whatever the recording did; MCP tool calls are
not made. It runs nothing without --yes, and removes the scratch area
afterwards unless --keep-scratch.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			h, err := resolveHome(f.home)
			if err != nil {
				return err
			}
			sf, err := findSession(h, args[0])
			if err != nil {
				return usageErrorf("%v", err)
			}
			switch {
			case f.rules != "" && f.rules != "recorded" && f.rules != "current":
				return usageErrorf("--rules %q: want current (the rules files that load now) or recorded", f.rules)
			case f.live && f.rules == "current":
				return usageErrorf("--rules current applies to verify replay, not --live")
			case !f.live && (f.yes || f.keepScratch):
				return usageErrorf("--yes and --keep-scratch apply to --live only")
			}
			if f.live {
				return runLiveReplay(c, a, f, sf.Path)
			}
			return runVerifyTree(c, a, f, h, sf.Path)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	fl.BoolVar(&f.live, "live", false, "run the recorded commands again, sandboxed, in a scratch copy of the workspace")
	fl.BoolVar(&f.yes, "yes", false, "with --live: run the recorded commands (without it live replay only says what it would run)")
	fl.BoolVar(&f.keepScratch, "keep-scratch", false, "with --live: keep the scratch area afterwards")
	fl.StringVar(&f.rules, "rules", "", "current: verify against the rules files that load now, not the recorded ones")
	fl.BoolVar(&f.asJSON, "json", false, "JSON output")
	return c
}

func runLiveReplay(c *cobra.Command, a *app, f replayFlags, path string) error {
	opts := replay.LiveOptions{KeepScratch: f.keepScratch}
	if !f.yes {
		p, err := replay.PlanLive(path, opts)
		if err != nil {
			return err
		}
		return usageErrorf("live replay runs %d recorded command(s) of %s again, each sandboxed in a scratch copy of %s (its only writable root, network off; %d MCP call(s) not made): add --yes to run them",
			p.Commands, path, p.Workspace, p.Skipped)
	}
	rep, err := replay.Live(c.Context(), path, opts)
	if err != nil {
		return err
	}
	if f.asJSON {
		if err := json.NewEncoder(a.stdout).Encode(rep); err != nil {
			return err
		}
	} else {
		rep.Render(a.stdout)
	}
	if rep.Drifted() {
		return &exitError{code: exitFailed}
	}
	return nil
}

// runVerifyTree verifies the session and, one after the other, every
// subagent it started (each a session of its own), stopping at the first
// that fails.
func runVerifyTree(c *cobra.Command, a *app, f replayFlags, home, path string) error {
	nodes, err := replay.Tree(path, func(id string) (string, error) {
		sf, err := journal.Find(home, id)
		return sf.Path, err
	})
	if err != nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("the tree of subagents of %s: %w", path, err)}
	}
	for _, n := range nodes {
		if n.Depth > 0 && !f.asJSON {
			fmt.Fprintf(a.stdout, "subagent %s (session %s, started by call %s):\n", strings.TrimSuffix(n.Prefix, "/"), n.SessionID, n.ParentCall)
		}
		if err := runVerifyReplay(c, a, f, home, n.Path); err != nil {
			return err
		}
	}
	return nil
}

func runVerifyReplay(c *cobra.Command, a *app, f replayFlags, home, path string) error {
	var opts replay.Options
	if f.rules == "current" {
		srcs, err := currentRules(c.Context(), home, path)
		if err != nil {
			return err
		}
		opts.Rules = srcs
	}
	res, err := replay.VerifyFile(c.Context(), path, opts)
	var d *replay.Divergence
	if errors.As(err, &d) {
		if f.asJSON {
			if err := json.NewEncoder(a.stdout).Encode(map[string]any{"ok": false, "journal_file": path, "rules": rulesLabel(f.rules), "seq": d.Seq, "call_id": d.CallID, "kind": d.Kind, "journal": d.Want, "replay": d.Got}); err != nil {
				return &exitError{code: exitFailed, err: fmt.Errorf("write the divergence: %w", err)}
			}
		} else {
			if f.rules == "current" {
				call := d.CallID
				if call == "" {
					call = "(session)"
				}
				fmt.Fprintf(a.stdout, "%s: the rules that load now decide call %s differently (seq %d): \"journal\" is the recorded decision, \"replay\" today's\n", path, call, d.Seq)
			}
			// err, not d: it also says when the journal is damaged; the
			// divergence names the file. Both sides quote recorded model
			// output: safe text only.
			fmt.Fprintln(a.stdout, strings.TrimRight(safetext.Text(err.Error()), "\n"))
		}
		return &exitError{code: exitFailed}
	}
	if err != nil {
		return fmt.Errorf("replay %s: %w", path, err)
	}
	if res.Damaged != nil {
		// The records past the damage were never replayed: a matching
		// prefix does not make the session verified.
		if f.asJSON {
			if err := json.NewEncoder(a.stdout).Encode(map[string]any{"ok": false, "journal_file": path, "rules": rulesLabel(f.rules), "records": res.Records, "compared": res.Compared,
				"segments": res.Segments, "damaged_after_seq": res.Damaged.LastGoodSeq, "damage": res.Damaged.Err.Error()}); err != nil {
				return &exitError{code: exitFailed, err: fmt.Errorf("write the result: %w", err)}
			}
		}
		return &exitError{code: exitFailed, err: fmt.Errorf("%v: the %d records before the damage replayed without a divergence, but the rest could not be read, so the session is not verified", res.Damaged, res.Records)}
	}
	if f.asJSON {
		return json.NewEncoder(a.stdout).Encode(map[string]any{"ok": true, "journal_file": path, "rules": rulesLabel(f.rules), "records": res.Records, "compared": res.Compared, "segments": res.Segments})
	}
	fmt.Fprintf(a.stdout, "replay ok: %s: %d records, %d decisions and inputs matched, %d process segment(s)", path, res.Records, res.Compared, res.Segments)
	if f.rules == "current" {
		fmt.Fprint(a.stdout, "; the rules that load now decide every call the same")
	}
	fmt.Fprintln(a.stdout)
	return nil
}

func rulesLabel(r string) string {
	if r == "current" {
		return "current"
	}
	return "recorded"
}

// currentRules loads the rules files that a session in the recorded
// workspace would load now: the user's, and the project's when the
// configuration trusts the workspace.
func currentRules(ctx context.Context, home, path string) ([]events.RuleSource, error) {
	ss, err := replay.SessionStart(path)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(config.LoadOptions{Home: home, Env: os.Getenv, Cwd: ss.Cwd})
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return loadRules(ctx, cfg.ConfigHome, rulesProject(cfg, ss.Cwd))
}
