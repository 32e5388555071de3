package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/spf13/cobra"
)

func newResumeCmd(a *app) *cobra.Command {
	var f commonFlags
	var last bool
	c := &cobra.Command{
		Use:   "resume SESSION|--last [PROMPT]",
		Short: "Continue a session: crashed, parked or finished",
		Args:  cobra.RangeArgs(0, 2),
		RunE: func(c *cobra.Command, args []string) (err error) {
			ref, prompt := "", ""
			switch {
			case last && len(args) <= 1:
				ref = "last"
				if len(args) == 1 {
					prompt = args[0]
				}
			case !last && len(args) >= 1:
				ref = args[0]
				if len(args) == 2 {
					prompt = args[1]
				}
			default:
				return usageErrorf("resume takes SESSION or --last, then an optional PROMPT")
			}
			cfg, err := f.load(c)
			if err != nil {
				return err
			}
			sf, err := journal.Find(cfg.Home, ref)
			if err != nil {
				var amb *journal.AmbiguousError
				var nf *journal.NotFoundError
				if errors.As(err, &amb) || errors.As(err, &nf) {
					return usageErrorf("%v", err)
				}
				return err
			}
			j, err := journal.Open(sf.Path)
			if err != nil {
				return err
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
			seen := 0
			for _, r := range recs {
				if r.Kind == events.KindModelResponse {
					seen++
				}
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			w, err := wire(ctx, a, cfg, ss.Cwd, f.decisions, f.json, seen)
			if err != nil {
				return err
			}
			defer closing(&err, "the session's MCP servers and terminal", w.finish)
			// A resumed session keeps the policy, sandbox plan and rules it
			// was started with (plus its amendments): Restore fills them
			// from the journal when they are left empty here.
			w.engine.Session, w.engine.Plan, w.engine.Rules, w.engine.Settings = events.SessionConfig{}, events.SandboxPlan{}, nil, nil
			w.engine.Instructions = ""
			s, err := engine.Resume(w.engine, j, recs, events.SessionResumed{PID: os.Getpid(), Decisions: f.decisions})
			if err != nil {
				return err
			}
			var res engine.TurnResult
			if _, _, pending := s.Pending(); pending {
				if res, err = s.Continue(ctx); err != nil {
					return err
				}
				if res.Status != events.TurnCompleted || strings.TrimSpace(prompt) == "" {
					return turnExit(res)
				}
			}
			if strings.TrimSpace(prompt) == "" {
				if res.TurnID == "" && !f.json {
					fmt.Fprintf(a.stderr, "docket: session %s has no unfinished turn; give a PROMPT to continue the conversation\n", ss.SessionID)
				}
				return nil
			}
			if res, err = s.Turn(ctx, prompt); err != nil {
				return err
			}
			return turnExit(res)
		},
	}
	f.register(c)
	c.Flags().BoolVar(&last, "last", false, "resume the most recent session")
	return c
}
