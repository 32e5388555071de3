package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/consensus"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
	"github.com/docket-engine/docket/states/policy"
	"github.com/spf13/cobra"
)

// agentsFlags are `docket agents run`'s flags.
type agentsFlags struct {
	commonFlags
	agents           []string
	quorum           int
	skipGitRepoCheck bool
	color            string
}

func newAgentsCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "agents",
		Short: "Run external agent CLIs ([agents.NAME]) and combine their answers",
		Args:  cobra.NoArgs,
	}
	f := &agentsFlags{}
	run := &cobra.Command{
		Use:   "run [flags] PROMPT",
		Short: "Ask every agent the prompt at once and build a consensus (PROMPT \"-\" reads stdin)",
		Long: `Ask each configured agent CLI ([agents.NAME] in config.toml, or those named by
--agents) the prompt, concurrently, each as a journaled run_agent tool call:
the approval policy applies, the agent runs under the session's sandbox (the
workspace as writable root, with the network on so it can reach its API),
and it is killed with its whole process tree at its deadline (timeout_sec).

The consensus shows the answers side by side, which agents agree, and a
synthesis written by the configured model. It is valid when at least
--quorum agents (default: a majority) finished; otherwise docket exits 1 and
names each agent that failed and why. The session can be audited and
replayed like any other (docket audit ID, docket replay ID).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return runAgents(c, a, f, args) },
	}
	f.commonFlags.registerOn(run.Flags())
	run.Flags().StringSliceVar(&f.agents, "agents", nil, "the agents to ask, comma-separated (default: every [agents.NAME])")
	run.Flags().IntVar(&f.quorum, "quorum", 0, "how many agents must finish for the consensus to be valid (default: a majority)")
	run.Flags().BoolVar(&f.skipGitRepoCheck, "skip-git-repo-check", false, "run even when the workspace is not inside a git repository")
	run.Flags().StringVar(&f.color, "color", "auto", "colour on stderr: always, never, auto")
	c.AddCommand(run)
	return c
}

// selectAgents resolves --agents against the configuration: every named
// agent must exist; none named means all, by name.
func selectAgents(cfg *config.Config, named []string) ([]string, error) {
	all := slicesSortedKeys(cfg.Agents)
	if len(all) == 0 {
		return nil, usageErrorf("no agents are configured: add an [agents.NAME] table (command, args, format, timeout_sec) to %s", cfg.File)
	}
	if len(named) == 0 {
		return all, nil
	}
	var out []string
	for _, n := range named {
		n = strings.TrimSpace(n)
		if _, ok := cfg.Agents[n]; !ok {
			msg := fmt.Sprintf("--agents: %q is not a configured agent (configured: %s)", n, strings.Join(all, ", "))
			if s := policy.Nearest(n, all); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return nil, usageErrorf("%s", msg)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

func slicesSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// agentInfos are the selected agents as the run_agent tool records them,
// and their environments for the runner.
func agentInfos(cfg *config.Config, names []string) ([]events.AgentInfo, map[string][]string) {
	infos := make([]events.AgentInfo, 0, len(names))
	env := map[string][]string{}
	for _, n := range names {
		ag := cfg.Agents[n]
		keys := slicesSortedKeys(ag.Env)
		for _, k := range keys {
			env[n] = append(env[n], k+"="+ag.Env[k])
		}
		timeout := ag.AgentTimeoutMs()
		if timeout <= 0 {
			timeout = engine.DefaultAgentTimeoutMs
		}
		infos = append(infos, events.AgentInfo{Name: n, Command: ag.Command, Args: slices.Clone(ag.Args), EnvNames: keys,
			TimeoutMs: timeout, Format: ag.FormatOrDefault()})
	}
	return infos, env
}

func runAgents(c *cobra.Command, a *app, f *agentsFlags, args []string) (err error) {
	cfg, err := f.load(c)
	if err != nil {
		return err
	}
	names, err := selectAgents(cfg, f.agents)
	if err != nil {
		return err
	}
	quorum := f.quorum
	if !c.Flags().Changed("quorum") {
		quorum = len(names)/2 + 1
	}
	if quorum < 1 || quorum > len(names) {
		return usageErrorf("--quorum %d: want 1 to %d (the number of agents asked: %s)", quorum, len(names), strings.Join(names, ", "))
	}
	prompt, cwd, err := promptAndWorkspace(a, args, f.cd, f.skipGitRepoCheck, cfg)
	if err != nil {
		return err
	}
	// Agent CLIs talk to their APIs: their sandbox has the network on
	// (journaled with the plan, and in the session's config).
	cfg.SandboxWorkspaceWrite.NetworkAccess = true
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Progress (the calls as they run) goes to stderr; stdout carries only
	// the consensus.
	progress := &app{stdin: a.stdin, stdout: a.stderr, stderr: a.stderr}
	w, err := wire(ctx, progress, cfg, cwd, wireOptions{decisions: f.decisions, json: f.json, color: f.color})
	if err != nil {
		return err
	}
	defer closing(&err, "the terminal", w.finish)
	infos, env := agentInfos(cfg, names)
	w.opts.AgentEnv = env
	w.opts.Tools = append(w.opts.Tools, engine.AgentTool{Agents: infos})
	adjust := w.opts.AdjustPlan
	w.opts.AdjustPlan = func(plan events.SandboxPlan) (events.SandboxPlan, error) {
		plan, err := adjust(plan)
		if plan.Sandboxed() {
			plan.Network = true
		}
		return plan, err
	}
	w.opts.Settings = append(w.opts.Settings, agentsRunSettings(names, quorum)...)
	am := &consensus.Model{Inner: w.opts.Model, Agents: names, Prompt: prompt, Quorum: quorum}
	w.opts.Model = am
	s, err := w.open(ctx)
	if err != nil {
		return err
	}
	defer closing(&err, "the session", s.Close)
	w.header(s.ID(), cwd, s.Config().Session, false, false, nil)
	res, err := s.Turn(ctx, consensus.TurnText(names, prompt))
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return &exitError{code: exitFailed, err: errors.New("interrupted")}
		}
		return err
	}
	if res.Status == events.TurnParked {
		return &exitError{code: exitParked}
	}
	rep := am.Report()
	if rep == nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("session %s: the agents did not all report (turn %s: %s)", s.ID(), res.Status, res.Message)}
	}
	rep.SessionID = s.ID()
	if rep.Valid && res.Status == events.TurnCompleted {
		rep.Synthesis = res.Message
	}
	if f.json {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fmt.Errorf("write the consensus: %w", err)
		}
	} else {
		writeReport(a.stdout, rep)
	}
	switch {
	case !rep.Valid:
		return &exitError{code: exitFailed, err: fmt.Errorf("consensus not valid: %s", rep.Error)}
	case res.Status != events.TurnCompleted:
		return &exitError{code: exitFailed, err: fmt.Errorf("the consensus is valid but the synthesis failed (turn %s: %s)", res.Status, res.Message)}
	}
	return nil
}

// writeReport prints the consensus for people: agent and model text goes
// through safetext, so an answer cannot drive the terminal.
func writeReport(out io.Writer, r *consensus.Report) {
	verdict := "valid"
	if !r.Valid {
		verdict = "NOT VALID"
	}
	fmt.Fprintf(out, "Consensus %s: %d of %d agents finished (quorum %d)\n", verdict, r.Finished, len(r.Agents), r.Quorum)
	for _, ag := range r.Agents {
		fmt.Fprintf(out, "\n== %s: %s", ag.Agent, strings.ReplaceAll(ag.Status, "_", " "))
		if ag.Error != "" {
			fmt.Fprintf(out, ": %s", safetext.Line(ag.Error))
		}
		fmt.Fprintln(out)
		if ag.Answer != "" {
			fmt.Fprintln(out, safetext.Text(ag.Answer))
		}
	}
	fmt.Fprintln(out)
	switch {
	case len(r.Groups) == 0:
		fmt.Fprintln(out, "Agreement: no agent finished.")
	case len(r.Groups) == 1 && len(r.Groups[0]) > 1:
		fmt.Fprintf(out, "Agreement: %s agree.\n", strings.Join(r.Groups[0], ", "))
	case len(r.Groups) == 1:
		fmt.Fprintf(out, "Agreement: only %s finished.\n", r.Groups[0][0])
	default:
		parts := make([]string, 0, len(r.Groups))
		for _, g := range r.Groups {
			parts = append(parts, "{"+strings.Join(g, ", ")+"}")
		}
		fmt.Fprintf(out, "Disagreement: the answers fall into %d groups: %s.\n", len(r.Groups), strings.Join(parts, " vs "))
	}
	for _, p := range r.Pairs {
		word := "differ"
		if p.Agree {
			word = "agree"
		}
		fmt.Fprintf(out, "  %s / %s: %s (word similarity %.2f)\n", p.A, p.B, word, p.Similarity)
	}
	if r.Valid {
		fmt.Fprintf(out, "\nSynthesis:\n%s\n", safetext.Text(r.Synthesis))
	} else {
		fmt.Fprintf(out, "\nNo synthesis: %s\n", safetext.Line(r.Error))
	}
	fmt.Fprintf(out, "\nSession %s (docket audit %s; docket replay %s)\n", r.SessionID, r.SessionID, r.SessionID)
}
