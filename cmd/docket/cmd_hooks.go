package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine/hooks"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/events/safetext"
)

// hooksFlags are the flags docket hooks and docket hooks trust share: the
// configuration layers that decide which hooks are configured.
type hooksFlags struct {
	commonFlags
}

func (f *hooksFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	fl.StringVarP(&f.profile, "profile", "p", "", "use [profiles.NAME] from config")
	fl.StringArrayVarP(&f.overrides, "config", "c", nil, "override one config key: KEY=VALUE")
	fl.StringVarP(&f.cd, "cd", "C", "", "the project whose hooks to review (default: current directory)")
}

func newHooksCmd(a *app) *cobra.Command {
	var f hooksFlags
	var asJSON bool
	c := &cobra.Command{
		Use:   "hooks [--json]",
		Short: "Configured hooks and whether they run: a project's hooks run once you trust them",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			cfg, err := f.load(c)
			if err != nil {
				return err
			}
			if asJSON {
				return writeHooksJSON(a.stdout, cfg.HookReviews, cfg.CodexHooks)
			}
			writeHooksList(a.stdout, cfg.HookReviews)
			writeCodexHooksList(a.stdout, cfg.CodexHooks)
			return nil
		},
	}
	f.register(c.Flags())
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	c.AddCommand(newHooksTrustCmd(a))
	return c
}

func newHooksTrustCmd(a *app) *cobra.Command {
	var f hooksFlags
	var all bool
	c := &cobra.Command{
		Use:   "trust [NAME...|--all]",
		Short: "Show the project hooks named (or all waiting) and trust them as they are now",
		RunE: func(c *cobra.Command, args []string) error {
			if all == (len(args) > 0) {
				return usageErrorf("name the hooks to trust (as `docket hooks` lists them), or give --all")
			}
			cfg, err := f.load(c)
			if err != nil {
				return err
			}
			picked, err := pickHooks(cfg.HookReviews, args, all)
			if err != nil {
				return err
			}
			if len(picked) == 0 {
				fmt.Fprintln(a.stdout, "no project hook needs review")
				return nil
			}
			for _, r := range picked {
				writeHookDefinition(a.stdout, r)
			}
			if err := config.TrustHooks(cfg.Home, picked, time.Now()); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "trusted %d hook(s) as shown; a change to a definition or its program files needs review again\n", len(picked))
			return nil
		},
	}
	f.register(c.Flags())
	c.Flags().BoolVar(&all, "all", false, "trust every project hook waiting for review")
	return c
}

// pickHooks returns the project hooks names designate ("NAME" or "STAGE
// NAME"), or with all every one waiting for review. A name that matches no
// project hook is a usage error listing those there are.
func pickHooks(reviews []config.HookReview, names []string, all bool) ([]config.HookReview, error) {
	var project, out []config.HookReview
	for _, r := range reviews {
		if r.File != "" {
			project = append(project, r)
		}
	}
	if all {
		for _, r := range project {
			if !r.Status.Runs() {
				out = append(out, r)
			}
		}
		return out, nil
	}
	for _, n := range names {
		found := false
		for _, r := range project {
			if n == r.Name || n == r.Stage+" "+r.Name {
				out = append(out, r)
				found = true
			}
		}
		if !found {
			var have []string
			for _, r := range project {
				have = append(have, safetext.Quote(r.Stage+" "+r.Name))
			}
			if len(have) == 0 {
				return nil, usageErrorf("no project hook is named %s: this project's config sets no hooks", safetext.Quote(n))
			}
			return nil, usageErrorf("no project hook is named %s; there are: %s", safetext.Quote(n), strings.Join(have, ", "))
		}
	}
	return out, nil
}

// statusWords says a status for people.
func statusWords(s config.HookStatus) string {
	switch s {
	case config.HookUser:
		return "runs (your config)"
	case config.HookTrusted:
		return "runs (trusted)"
	case config.HookChanged:
		return "does not run: changed since you trusted it"
	default:
		return "does not run: new, needs review"
	}
}

func writeHooksList(w io.Writer, reviews []config.HookReview) {
	if len(reviews) == 0 {
		fmt.Fprintln(w, "no Docket hooks are configured")
		return
	}
	for _, r := range reviews {
		src := "your config"
		if r.File != "" {
			src = safetext.Line(r.File)
		}
		fmt.Fprintf(w, "%s %s\n  %s\n  from %s\n  command: %s\n", r.Stage, safetext.Line(r.Name), statusWords(r.Status), src, safetext.Join(r.Hook.Command))
		if !r.Status.Runs() {
			// Quoted as a shell reads it back: a name with a control
			// character can still be typed.
			fmt.Fprintf(w, "  trust with: docket hooks trust %s\n", safetext.Quote(r.Stage+" "+r.Name))
		}
	}
}

// writeHookDefinition shows everything a trust covers, the project's text
// escaped so that it cannot draw over what it is shown beside.
func writeHookDefinition(w io.Writer, r config.HookReview) {
	h := r.Hook
	fmt.Fprintf(w, "%s %s from %s (%s)\n", r.Stage, safetext.Line(r.Name), safetext.Line(r.File), statusWords(r.Status))
	fmt.Fprintf(w, "  tool         %s\n", safetext.Line(h.Tool))
	if len(h.ArgvPrefix) > 0 {
		fmt.Fprintf(w, "  argv_prefix  %s\n", safetext.Join(h.ArgvPrefix))
	}
	fmt.Fprintf(w, "  command      %s\n", safetext.Join(h.Command))
	onError := h.OnError
	if onError == "" {
		onError = "deny"
	}
	sandboxed := h.Sandbox == nil || *h.Sandbox
	fmt.Fprintf(w, "  on_error     %s\n  sandbox      %v\n", safetext.Line(onError), sandboxed)
	if h.Protocol != "" {
		fmt.Fprintf(w, "  protocol     %s\n", safetext.Line(h.Protocol))
	}
	if h.TimeoutSec > 0 {
		fmt.Fprintf(w, "  timeout_sec  %v\n", h.TimeoutSec)
	}
	for _, p := range r.Programs {
		note := "its content is part of the trust"
		if !underTreePin(r.Pins, p) {
			// A sandboxed session keeps it read-only while trusted
			// (adjustPlan); an unsandboxed one can write it.
			note += "; outside .docket/.codex, so while trusted a sandboxed session makes it read-only to its commands"
		}
		fmt.Fprintf(w, "  program file %s (%s)\n", safetext.Line(p), note)
	}
	for _, p := range r.Pins {
		if p.Tree {
			// The config's own directory: what runs from it may be any
			// file in it.
			fmt.Fprintf(w, "  directory    %s (every file under it is part of the trust)\n", safetext.Line(p.Path))
		}
	}
	fmt.Fprintf(w, "  hash         %s\n", r.Hash)
}

// The statuses of a Codex hook in docket hooks --json: runs as the
// Docket hooks listed with it, or not at all.
const (
	codexRuns   = "codex, runs as Docket hooks"
	codexNotRun = "codex, not run"
)

// writeCodexHooksList lists the Codex hooks of the config files read,
// none of which Docket runs, with why.
func writeCodexHooksList(w io.Writer, codex []config.CodexHook) {
	for _, h := range codex {
		status := "does not run: " + h.Why
		if h.Translated() {
			status = "runs as Docket pre_tool hooks " + strings.Join(h.DocketHooks, ", ") + " (listed above; told each call as Codex tells it)"
		}
		fmt.Fprintf(w, "Codex %s (group %d, handler %d)\n  %s\n  from %s:%d\n",
			safetext.Line(h.Event), h.Group, h.Handler, safetext.Line(status), safetext.Line(h.File), h.Line)
		if h.Matcher != "" {
			fmt.Fprintf(w, "  matcher: %s\n", safetext.Line(h.Matcher))
		}
		fmt.Fprintf(w, "  %s: %s\n", safetext.Line(h.Type), safetext.Line(h.Command))
	}
}

// hookJSON is one hook in docket hooks --json.
type hookJSON struct {
	Stage    string   `json:"stage"`
	Name     string   `json:"name"`
	Status   string   `json:"status"`
	Runs     bool     `json:"runs"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line,omitempty"`
	Tool     string   `json:"tool"`
	Command  []string `json:"command"`
	Programs []string `json:"programs,omitempty"`
	Hash     string   `json:"hash,omitempty"`
	// Why says why a Codex hook does not run; DocketHooks are those it
	// runs as.
	Why         string   `json:"why,omitempty"`
	DocketHooks []string `json:"docket_hooks,omitempty"`
	// Protocol is "codex" for a hook told calls as Codex tells them.
	Protocol string `json:"protocol,omitempty"`
}

func writeHooksJSON(w io.Writer, reviews []config.HookReview, codex []config.CodexHook) error {
	out := make([]hookJSON, 0, len(reviews)+len(codex))
	for _, r := range reviews {
		out = append(out, hookJSON{Stage: r.Stage, Name: r.Name, Status: string(r.Status), Runs: r.Status.Runs(), File: r.File,
			Tool: r.Hook.Tool, Command: r.Hook.Command, Programs: r.Programs, Hash: r.Hash, Protocol: r.Hook.Protocol})
	}
	for _, h := range codex {
		status := codexNotRun
		if h.Translated() {
			status = codexRuns
		}
		out = append(out, hookJSON{Stage: h.Event, Name: fmt.Sprintf("%s #%d.%d", h.Event, h.Group, h.Handler), Status: status, Runs: h.Translated(),
			File: h.File, Line: h.Line, Tool: h.Matcher, Command: []string{h.Command}, Why: h.Why, DocketHooks: h.DocketHooks})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// underTreePin reports whether path lies in a directory pinned whole (the
// hook's config directory, read-only to the sandbox).
func underTreePin(pins []hooks.Pin, path string) bool {
	for _, p := range pins {
		if p.Tree && (events.WithinAny(path, []string{p.Path}) || p.Target != "" && events.WithinAny(path, []string{p.Target})) {
			return true
		}
	}
	return false
}
