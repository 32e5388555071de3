package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/docket-engine/docket/cmd/docket/config"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/journal"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

// commonFlags are the configuration flags exec and resume share.
type commonFlags struct {
	model, approval, sandbox, cd, profile, modelScript, decisions, home string
	overrides                                                           []string
	json                                                                bool
}

func (f *commonFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVarP(&f.model, "model", "m", "", "model name")
	fl.StringVarP(&f.approval, "ask-for-approval", "a", "", "approval policy: untrusted, on-failure, on-request, never")
	fl.StringVarP(&f.sandbox, "sandbox", "s", "", "sandbox mode: read-only, workspace-write, danger-full-access")
	fl.StringVarP(&f.cd, "cd", "C", "", "workspace root (default: current directory)")
	fl.BoolVar(&f.json, "json", false, "JSONL events on stdout")
	fl.StringArrayVarP(&f.overrides, "config", "c", nil, "override one config key: KEY=VALUE (VALUE parsed as TOML)")
	fl.StringVarP(&f.profile, "profile", "p", "", "use [profiles.NAME] from config")
	fl.StringVar(&f.modelScript, "model-script", "", "use the scripted model provider with this JSONL file")
	fl.StringVar(&f.decisions, "decisions", "", "comma-separated answers for approval requests, in order")
	fl.StringVar(&f.home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
}

// load applies every configuration layer.
func (f *commonFlags) load(c *cobra.Command) (*config.Config, error) {
	flags := config.Flags{}
	set := func(name string, v *string) *string {
		if c.Flags().Changed(name) {
			return v
		}
		return nil
	}
	flags.Model = set("model", &f.model)
	flags.ApprovalPolicy = set("ask-for-approval", &f.approval)
	flags.SandboxMode = set("sandbox", &f.sandbox)
	flags.ModelScript = set("model-script", &f.modelScript)
	// The workspace's [projects] trust decides whether its own config and
	// rules load; a -C that does not exist is reported by the command.
	cwd, _ := workspace(f.cd)
	cfg, err := config.Load(config.LoadOptions{Home: f.home, Profile: f.profile, Env: os.Getenv, Overrides: f.overrides, Flags: flags, Cwd: cwd})
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	printWarnings(c.ErrOrStderr(), cfg)
	return cfg, nil
}

func newExecCmd(a *app) *cobra.Command {
	var f commonFlags
	c := &cobra.Command{
		Use:   "exec [flags] PROMPT",
		Short: "Run one agent turn (PROMPT \"-\" reads stdin)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) (err error) {
			cfg, err := f.load(c)
			if err != nil {
				return err
			}
			prompt, err := readPrompt(a, args[0])
			if err != nil {
				return err
			}
			if strings.TrimSpace(prompt) == "" {
				return usageErrorf("the prompt is empty")
			}
			cwd, err := workspace(f.cd)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			w, err := wire(ctx, a, cfg, cwd, f.decisions, f.json, 0)
			if err != nil {
				return err
			}
			defer closing(&err, "the session's MCP servers and terminal", w.finish)
			id, err := uuid.NewV7()
			if err != nil {
				return err
			}
			w.engine.SessionID = id.String()
			started := time.Now()
			j, err := journal.Create(cfg.Home, w.engine.SessionID, started)
			if err != nil {
				return err
			}
			// Close commits what is still buffered: a failure there loses records.
			defer closing(&err, "the journal", j.Close)
			s, err := engine.Start(w.engine, j)
			if err != nil {
				return err
			}
			res, err := s.Turn(ctx, prompt)
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return &exitError{code: exitFailed, err: errors.New("interrupted")}
				}
				return err
			}
			return turnExit(res)
		},
	}
	f.register(c)
	return c
}
