package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/cmd/docket/internal/render"
	"github.com/docket-engine/docket/cmd/docket/internal/tui"
	"github.com/spf13/cobra"
)

// chatFlags are exec's flags plus --resume.
type chatFlags struct {
	execFlags
	resume string
}

func newChatCmd(a *app) *cobra.Command {
	f := &chatFlags{}
	c := &cobra.Command{
		Use:   "chat [flags] [PROMPT]",
		Short: "Interactive session in a terminal (the default with no command)",
		Long: `Open an interactive session: type prompts, watch the model's answer stream
in, answer approvals in an overlay, and use slash commands (/help lists
them). It runs on the same engine and journal as exec, so every session
can be resumed (docket chat --resume ID, docket resume ID), audited and
verify-replayed.

PROMPT, when given, is sent as the first turn. Without a terminal on stdin
and stdout, or with --json, chat is exec: one turn, the same output.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runChat(c, a, f, args)
		},
	}
	f.registerOn(c.Flags())
	c.Flags().StringVar(&f.resume, "resume", "", "open the UI on a recorded session (an id, a unique prefix, or last)")
	return c
}

// interactiveTerminal reports whether stdin and stdout are both terminals.
func interactiveTerminal(a *app) bool {
	in, ok := a.stdin.(*os.File)
	if !ok || !render.IsTerminal(in) {
		return false
	}
	out, ok := a.stdout.(*os.File)
	return ok && render.IsTerminal(out)
}

func runChat(c *cobra.Command, a *app, f *chatFlags, args []string) error {
	if f.json || !interactiveTerminal(a) {
		if f.resume != "" {
			return usageErrorf("chat --resume needs a terminal; without one, use docket resume %s", f.resume)
		}
		// Today's exec behaviour: one turn, JSONL or human output.
		return runExec(c, a, &f.execFlags, args)
	}
	flags, err := bypassFlags(c, f.bypass)
	if err != nil {
		return err
	}
	if f.resume != "" {
		if err := refuseUnresumableFlags(c); err != nil {
			return err
		}
	}
	cfg, err := f.loadWith(c, flags)
	if err != nil {
		return err
	}
	cwd, err := workspace(f.cd)
	if err != nil {
		return err
	}
	if f.resume == "" && !f.skipGitRepoCheck && !cfg.Trust.Trusted() {
		if err := checkGitRepo(cwd); err != nil {
			if trusted, aerr := askTrust(a, cwd); aerr != nil || !trusted {
				return errors.Join(err, aerr)
			}
		}
	}
	if f.ephemeral || f.outputSchema != "" || f.outputLastMessage != "" {
		return usageErrorf("--ephemeral, --output-schema and --output-last-message are exec's; the interactive session does not take them")
	}
	if f.resume == "" {
		// A project's hooks waiting for review are asked about once,
		// before the UI; trusted, they load with the configuration again.
		trusted, err := askHookTrust(a, cfg)
		if err != nil {
			return err
		}
		if trusted {
			if cfg, err = f.loadAt(c, flags, cwd, cfg.Warnings); err != nil {
				return err
			}
		}
	}
	roots, err := addDirs(f.addDirs)
	if err != nil {
		return err
	}
	color, err := useColor(f.color, a.stdout)
	if err != nil {
		return err
	}
	return runInteractive(c, a, cfg, cwd, chatStart{flags: &f.execFlags, resume: f.resume, prompt: firstArg(args), addDirs: roots, color: color})
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// chatStart is what the command line gives the interactive session.
type chatStart struct {
	flags   *execFlags
	resume  string
	prompt  string
	addDirs []string
	color   bool
}

// runInteractive runs the Bubble Tea program over a session and, once it
// quits, waits for the turn it cancelled to record where it stopped before
// the journal closes.
func runInteractive(c *cobra.Command, a *app, cfg *config.Config, cwd string, st chatStart) (err error) {
	ctx, cancel := context.WithCancel(c.Context())
	defer cancel()
	bridge := tui.NewBridge()
	b := &chatBackend{a: a, cmd: c, flags: st.flags, cfg: cfg, cwd: cwd, bridge: bridge, addDirs: st.addDirs, color: st.color}
	defer closing(&err, "the session", b.close)
	if st.resume != "" {
		if _, err := b.Resume(ctx, st.resume); err != nil {
			return err
		}
	} else if _, err := b.New(ctx); err != nil {
		return err
	}
	for _, p := range st.flags.images {
		_, ok, err := b.AttachImage(p)
		if err == nil && !ok {
			err = errors.New("not a png, jpeg, gif or webp file that can be read")
		}
		if err != nil {
			return usageErrorf("--image %s: %v", p, err)
		}
	}
	hist, herr := b.history()
	if herr != nil {
		fmt.Fprintf(a.stderr, "docket: prompt history: %v (kept in memory for this session)\n", herr)
	}
	m := tui.New(ctx, b, tui.Options{Color: st.color, Prompt: st.prompt, History: hist})
	reports := &terminalReports{}
	guard := tui.NewReflowGuard(a.stdout)
	p := tea.NewProgram(m, tea.WithInput(a.stdin), tea.WithOutput(guard), tea.WithContext(ctx), tea.WithFPS(120),
		tea.WithFilter(func(m tea.Model, msg tea.Msg) tea.Msg {
			if msg = reports.filter(m, msg); msg == nil {
				return nil
			}
			return guard.Filter(m, msg)
		}))
	bridge.Attach(p.Send)
	pump, stopPump := context.WithCancel(ctx)
	defer stopPump()
	go bridge.Run(pump)
	_, runErr := p.Run()
	// The program is gone: stop the turn it may have left running and let
	// the engine journal the interruption before anything closes.
	cancel()
	b.wait()
	bridge.Detach()
	if runErr != nil && !errors.Is(runErr, tea.ErrProgramKilled) && !errors.Is(runErr, context.Canceled) {
		return fmt.Errorf("terminal UI: %w", runErr)
	}
	return nil
}
