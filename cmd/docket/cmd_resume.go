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
	j, err := journal.Open(sf.Path)
	if err != nil {
		return err
	}
	if d := j.Damage(); d != nil {
		fmt.Fprintf(a.stderr, "docket: journal %s: %s\n", sf.Path, d)
	}
	// Close commits what is still buffered: a failure there loses records.
	defer closing(&err, "the journal", j.Close)
	recs, err := j.All()
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return fmt.Errorf("session %s has no records: it stopped before its first commit, so nothing ran; start a new session with docket exec", sf.ID)
	}
	first, err := recs[0].Decode()
	if err != nil {
		return err
	}
	ss, ok := first.(*events.SessionStarted)
	if !ok {
		return errors.New("the journal does not begin with session_started")
	}
	if p := ss.Parent; p != nil {
		// A subagent's approvals belong to its parent's approver, and its
		// end is its parent's call's outcome: it goes on with its parent.
		return usageErrorf("session %s is subagent %s of session %s (call %s); resume that session: docket resume %s", ss.SessionID, p.Name, p.SessionID, p.CallID, p.SessionID)
	}
	// The session's own workspace decides which project config applies
	// (its [projects] trust, its .docket/config.toml), not the directory
	// resume happens to run in: a session must not go on under another
	// project's settings.
	if here, _ := workspace(f.cd); ss.Cwd != "" && here != ss.Cwd {
		if cfg, err = f.loadAt(c, config.Flags{}, ss.Cwd, cfg.Warnings); err != nil {
			return err
		}
	}
	// @ references expand against the session's workspace, before
	// anything is written: a bad one leaves the session as it was.
	input, err := opts.input(a.stderr, ss.Cwd, prompt)
	if err != nil {
		return resumeUntouched(ss.SessionID, err)
	}
	seen, compacted := scriptLinesUsed(recs)
	// The session goes on with the model it was driven by, unless this
	// command line names another; checked before anything is written, so
	// a resume that cannot reach its model leaves the session as it was.
	if err := recordedModel(c, cfg, ss); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	w, err := wire(ctx, a, cfg, ss.Cwd, wireOptions{decisions: f.decisions, json: f.json, jsonExt: f.jsonExtensions, responsesSeen: seen,
		compactionsSeen: compacted, color: f.color, outputSchema: opts.schema, subagents: offeredSpawnAgent(ss)})
	if err != nil {
		return resumeUntouched(ss.SessionID, err)
	}
	defer closing(&err, "the session's MCP servers and terminal", w.finish)
	agentsRun := resumeAgents(w, cfg, ss)
	if err := preflightModel(w.engine.Model); err != nil {
		return resumeUntouched(ss.SessionID, err)
	}
	// A resumed session keeps the policy, sandbox plan and rules it
	// was started with (plus its amendments): Restore fills them
	// from the journal when they are left empty here.
	w.engine.Session, w.engine.Plan, w.engine.Rules, w.engine.Settings = events.SessionConfig{}, events.SandboxPlan{}, nil, nil
	w.engine.Instructions = ""
	log, stopTelemetry, err := startTelemetry(ctx, a.stderr, cfg, ss.SessionID, j, recs)
	if err != nil {
		return err
	}
	// Before the journal's Close: it commits the last records through the tap.
	defer closing(&err, "the telemetry", stopTelemetry)
	s, err := engine.Resume(w.engine, log, recs, events.SessionResumed{PID: os.Getpid(), Decisions: f.decisions})
	if err != nil {
		return err
	}
	bypassed := false
	for _, st := range ss.Settings {
		bypassed = bypassed || st.Key == bypassSetting
	}
	w.header(ss.SessionID, ss.Cwd, ss.Config, true, bypassed, nil)
	var res engine.TurnResult
	if _, _, pending := s.Pending(); pending {
		if res, err = s.Continue(ctx); err != nil {
			return err
		}
		if err := agentsRun.verdict(res); err != nil {
			return err
		}
		// The continued turn's own prompt is in the journal, not here.
		notifyTurn(ctx, a.stderr, cfg, ss.SessionID, ss.Cwd, "", res)
		if res.Status != events.TurnCompleted || strings.TrimSpace(prompt) == "" {
			if err := opts.writeLastMessage(res); err != nil {
				return err
			}
			return w.exit(res)
		}
	}
	if strings.TrimSpace(prompt) == "" {
		if res.TurnID == "" && !f.json {
			fmt.Fprintf(a.stderr, "docket: session %s has no unfinished turn; give a PROMPT to continue the conversation (docket resume %s \"next step\")\n", ss.SessionID, ss.SessionID)
		}
		return nil
	}
	if res, err = turn(ctx, s, input); err != nil {
		return err
	}
	if err := opts.writeLastMessage(res); err != nil {
		return err
	}
	notifyTurn(ctx, a.stderr, cfg, ss.SessionID, ss.Cwd, prompt, res)
	return w.exit(res)
}

// scriptLinesUsed counts what a resumed session already took from a
// scripted model: the model's responses (not docket's own, of an agents
// run) and the compactions, so the script goes on from the next lines.
func scriptLinesUsed(recs []events.Record) (responses, compactions int) {
	for _, r := range recs {
		switch {
		case r.Kind == events.KindModelResponse && !docketsOwnResponse(r):
			responses++
		case r.Kind == events.KindCompaction:
			compactions++
		}
	}
	return responses, compactions
}

// offeredSpawnAgent says whether the session was offered spawn_agent: a
// resumed session keeps the tools it had, whatever [subagents] says now.
func offeredSpawnAgent(ss *events.SessionStarted) bool {
	for _, t := range ss.Tools {
		if t.Server == "" && t.Name == engine.SpawnAgentName {
			return true
		}
	}
	return false
}
