package main

import (
	"errors"
	"fmt"
	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/consensus"
	"github.com/docket-engine/docket/engine/session"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/spf13/cobra"
)

// resumeFlags choose the session when no SESSION is given.
type resumeFlags struct {
	// last takes the newest session of this project (the workspace, -C).
	last bool
	// all widens --last and the picker to every project.
	all bool
}

func (r *resumeFlags) register(c *cobra.Command) {
	c.Flags().BoolVar(&r.last, "last", false, "resume the most recent session of this project (the workspace, -C)")
	c.Flags().BoolVar(&r.all, "all", false, "with --last or the picker: consider every project's sessions")
}

func newResumeCmd(a *app) *cobra.Command {
	f := &execFlags{}
	c := newResumeSubcommand(a, f, "resume [SESSION|--last] [PROMPT]", "Continue a session: crashed, parked or finished")
	f.registerOn(c.Flags())
	// exec's flags that a resumed session cannot take (runResume says why
	// when given) or has no use for stay out of resume's help.
	for _, name := range []string{"ephemeral", "add-dir", "dangerously-bypass-approvals-and-sandbox", "skip-git-repo-check"} {
		_ = c.Flags().MarkHidden(name) // the flags exist: registered just above
	}
	return c
}

// newResumeSubcommand is `docket resume` and `docket exec resume`; the
// latter inherits f from exec's persistent flags.
func newResumeSubcommand(a *app, f *execFlags, use, short string) *cobra.Command {
	var r resumeFlags
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Long: `Continue a session: finish the turn a crash interrupted (calls found
mid-run are recorded as interrupted, never run again), answer a parked
approval (--decisions), then run PROMPT as a new turn if one is given.

SESSION is an id, a unique prefix of one, "last" (the newest session of any
project) or a journal file. --last takes the newest session of this project
(the workspace, -C; --all for any project). With neither, a terminal gets a
numbered list of this project's recent sessions to pick from.`,
		Args: cobra.RangeArgs(0, 2),
		RunE: func(c *cobra.Command, args []string) error {
			return runResume(c, a, f, r, args)
		},
	}
	r.register(c)
	return c
}

func runResume(c *cobra.Command, a *app, f *execFlags, r resumeFlags, args []string) (err error) {
	if err := refuseUnresumableFlags(c); err != nil {
		return err
	}
	ref, prompt := "", ""
	switch {
	case r.last && len(args) <= 1:
		if len(args) == 1 {
			prompt = args[0]
		}
	case !r.last && len(args) >= 1:
		ref = args[0]
		if len(args) == 2 {
			prompt = args[1]
		}
	case r.last:
		return usageErrorf("resume --last takes at most a PROMPT, not a SESSION too")
	}
	if prompt != "" {
		if prompt, err = readPrompt(a, prompt); err != nil {
			return err
		}
	}
	cfg, err := f.load(c)
	if err != nil {
		return err
	}
	opts, err := f.turnOptions()
	if err != nil {
		return err
	}
	var sf journal.SessionFile
	if ref != "" {
		// "last" is the newest session that is not a subagent's: a child
		// goes on with its parent.
		sf, err = findSession(cfg.Home, ref)
		if err != nil {
			var amb *journal.AmbiguousError
			var nf *journal.NotFoundError
			if errors.As(err, &amb) || errors.As(err, &nf) {
				return usageErrorf("%v", err)
			}
			return err
		}
	} else {
		project, err := workspace(f.cd)
		if err != nil {
			return err
		}
		if sf, err = chooseSession(a, cfg.Home, project, r); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var (
		w         *wiring
		ss        *events.SessionStarted
		input     engine.TurnInput
		agentsRun *consensus.Model
	)
	// configure runs before the resume writes anything: what fails there
	// leaves the session as it was.
	configure := func(rec session.Recorded) (session.Options, error) {
		if rec.Damage != "" {
			fmt.Fprintf(a.stderr, "docket: journal %s: %s\n", rec.Path, rec.Damage)
		}
		ss = rec.Started
		// The session's own workspace decides which project config applies
		// (its [projects] trust, its .docket/config.toml), not the directory
		// resume happens to run in: a session must not go on under another
		// project's settings.
		if here, _ := workspace(f.cd); ss.Cwd != "" && here != ss.Cwd {
			if cfg, err = f.loadAt(c, config.Flags{}, ss.Cwd, cfg.Warnings); err != nil {
				return session.Options{}, err
			}
		}
		// @ references expand against the session's workspace.
		if input, err = opts.input(a.stderr, ss.Cwd, prompt); err != nil {
			return session.Options{}, resumeUntouched(ss.SessionID, err)
		}
		// The session goes on with the model it was driven by, unless this
		// command line names another.
		if err := recordedModel(c, cfg, ss); err != nil {
			return session.Options{}, err
		}
		if w, err = wire(ctx, a, cfg, ss.Cwd, wireOptions{decisions: f.decisions, json: f.json, jsonExt: f.jsonExtensions,
			color: f.color, outputSchema: opts.schema}); err != nil {
			return session.Options{}, resumeUntouched(ss.SessionID, err)
		}
		agentsRun = resumeAgents(w, cfg, rec)
		// Checked here too, so that its failure is reported as one that
		// left the session untouched.
		if err := session.Preflight(w.opts.Model); err != nil {
			return session.Options{}, resumeUntouched(ss.SessionID, err)
		}
		w.opts.ResumeDecisions = f.decisions
		return w.opts, nil
	}
	s, err := session.ResumeWith(ctx, sf.Path, configure)
	if w != nil {
		defer closing(&err, "the terminal", w.finish)
	}
	if err != nil {
		var pe *session.ParentError
		if errors.As(err, &pe) {
			// A subagent's approvals belong to its parent's approver, and its
			// end is its parent's call's outcome: it goes on with its parent.
			return usageErrorf("%v: docket resume %s", err, pe.Parent.SessionID)
		}
		var ne *session.EmptyJournalError
		if errors.As(err, &ne) {
			return fmt.Errorf("%w; start a new session with docket exec", err)
		}
		return sessionError(err)
	}
	// Close commits the journal (a failure there loses records), then
	// stops the sandbox servers, processes and MCP servers.
	defer closing(&err, "the session", s.Close)
	bypassed := false
	for _, st := range ss.Settings {
		bypassed = bypassed || st.Key == bypassSetting
	}
	w.header(ss.SessionID, ss.Cwd, ss.Config, true, bypassed, nil)
	var res engine.TurnResult
	if s.Pending() {
		if res, err = s.Continue(ctx); err != nil {
			return err
		}
		if err := agentsVerdict(agentsRun, res); err != nil {
			return err
		}
		// The continued turn's own prompt is in the journal, not here.
		notifyTurn(ctx, a.stderr, cfg, ss.SessionID, ss.Cwd, "", res)
		if res.Status != events.TurnCompleted || strings.TrimSpace(prompt) == "" {
			if err := opts.writeLastMessage(res); err != nil {
				return err
			}
			return w.exit(ss.SessionID, res)
		}
	}
	if strings.TrimSpace(prompt) == "" {
		if res.TurnID == "" && !f.json {
			fmt.Fprintf(a.stderr, "docket: session %s has no unfinished turn; give a PROMPT to continue the conversation (docket resume %s \"next step\")\n", ss.SessionID, ss.SessionID)
		}
		return nil
	}
	if res, err = s.TurnWithInput(ctx, input); err != nil {
		return err
	}
	if err := opts.writeLastMessage(res); err != nil {
		return err
	}
	notifyTurn(ctx, a.stderr, cfg, ss.SessionID, ss.Cwd, prompt, res)
	return w.exit(ss.SessionID, res)
}
