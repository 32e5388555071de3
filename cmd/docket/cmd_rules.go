package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine/rulesfile"
	"github.com/docket-engine/docket/states/cmdsafety"
	"github.com/docket-engine/docket/states/policy"
	"github.com/docket-engine/docket/states/rules"
)

func newRulesCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "rules",
		Short: "Work with rules files",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return usageErrorf("rules: a subcommand is required (check)")
		},
	}
	c.AddCommand(newRulesCheckCmd(a))
	return c
}

type rulesCheckFlags struct {
	files   []string
	mode    string
	jsonOut bool
	home    string
}

func newRulesCheckCmd(a *app) *cobra.Command {
	var f rulesCheckFlags
	c := &cobra.Command{
		Use:   "check [--rules FILE]... [-s MODE] [--json] -- CMD [ARG...]",
		Short: "Evaluate rules files and command safety for one command",
		Long: "Evaluate one command against the rules files (by default $DOCKET_HOME/rules/*.rules then\n" +
			"./.docket/rules/*.rules when [projects] trusts the directory) and print the decision, the rule that matched, whether the command\n" +
			"is known-safe or dangerous, and the requirement under each approval policy.",
		RunE: func(c *cobra.Command, args []string) error { return runRulesCheck(a, f, args) },
	}
	fl := c.Flags()
	// Everything after the command's first word belongs to the command.
	fl.SetInterspersed(false)
	fl.StringArrayVar(&f.files, "rules", nil, "rules file to load, repeatable (default: the discovered files)")
	fl.StringVarP(&f.mode, "sandbox", "s", string(policy.WorkspaceWrite), "sandbox mode the requirements assume")
	fl.BoolVar(&f.jsonOut, "json", false, "print one JSON object")
	fl.StringVar(&f.home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	return c
}

// rulesCheckResult is the `rules check --json` shape of docs/cli.md.
type rulesCheckResult struct {
	Command      []string        `json:"command"`
	Decision     rules.Decision  `json:"decision"`
	KnownSafe    bool            `json:"known_safe"`
	Dangerous    bool            `json:"dangerous"`
	MatchedRules []rules.Match   `json:"matched_rules"`
	Requirements rulesCheckByPol `json:"requirements"`
	reasons      map[string]string
	mode         policy.SandboxMode
	files        []string
}

// rulesCheckByPol keeps CLI.md's key order.
type rulesCheckByPol struct {
	Untrusted policy.RequirementKind `json:"untrusted"`
	OnFailure policy.RequirementKind `json:"on-failure"`
	OnRequest policy.RequirementKind `json:"on-request"`
	Never     policy.RequirementKind `json:"never"`
}

func runRulesCheck(a *app, f rulesCheckFlags, args []string) error {
	if len(args) == 0 {
		return usageErrorf("rules check: no command given; usage: docket rules check [--rules FILE]... [-s MODE] [--json] -- CMD [ARG...]")
	}
	mode, err := policy.ParseSandboxMode(f.mode)
	if err != nil {
		return usageErrorf("rules check: -s: %v", err)
	}
	files := f.files
	if len(files) == 0 {
		if _, err := resolveHome(f.home); err != nil {
			return usageErrorf("rules check: %v", err)
		}
		cwd, err := os.Getwd()
		if err != nil {
			return usageErrorf("rules check: current directory: %v", err)
		}
		// The project's own rules count only when exec would load them:
		// when [projects] trusts it.
		cfg, err := config.Load(config.LoadOptions{Home: f.home, Env: os.Getenv, Cwd: cwd})
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		printWarnings(a.stderr, cfg)
		// The Codex home's rules when its config is the one read.
		files = rulesfile.Discover(cfg.ConfigHome, rulesProject(cfg, cwd))
	}
	set, err := rulesfile.Load(files, rules.LoadOptions{})
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("rules check: %w", err)}
	}

	res := checkCommand(set, args, mode)
	res.files = files
	if f.jsonOut {
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(res)
	}
	printRulesCheck(a.stdout, res)
	return nil
}

func checkCommand(set *rules.Set, argv []string, mode policy.SandboxMode) rulesCheckResult {
	ev := set.Evaluate(argv)
	res := rulesCheckResult{
		Command:      argv,
		Decision:     ev.Decision,
		KnownSafe:    cmdsafety.IsKnownSafe(argv),
		Dangerous:    cmdsafety.IsDangerous(argv),
		MatchedRules: ev.Matched,
		reasons:      map[string]string{},
		mode:         mode,
	}
	if res.MatchedRules == nil {
		res.MatchedRules = []rules.Match{}
	}
	for _, p := range policy.ApprovalPolicies() {
		r := policy.ExecRequirement(policy.ExecInput{Argv: argv, Approval: p, Sandbox: policy.SandboxPolicy{Mode: mode}, Rules: set, SandboxPermissions: policy.UseDefault})
		switch p {
		case policy.Untrusted:
			res.Requirements.Untrusted = r.Kind
		case policy.OnFailure:
			res.Requirements.OnFailure = r.Kind
		case policy.OnRequest:
			res.Requirements.OnRequest = r.Kind
		case policy.Never:
			res.Requirements.Never = r.Kind
		}
		res.reasons[string(p)] = r.Reason
	}
	return res
}

func printRulesCheck(w io.Writer, res rulesCheckResult) {
	fmt.Fprintf(w, "command:     %s\n", shellJoin(res.Command))
	if len(res.files) == 0 {
		fmt.Fprintf(w, "rules files: none\n")
	} else {
		fmt.Fprintf(w, "rules files: %s\n", strings.Join(res.files, ", "))
	}
	fmt.Fprintf(w, "decision:    %s\n", res.Decision)
	for _, m := range res.MatchedRules {
		fmt.Fprintf(w, "matched:     %s:%d %s %s", m.File, m.Line, shellJoin(m.Pattern), m.Decision)
		if m.Justification != "" {
			fmt.Fprintf(w, " (%s)", m.Justification)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "known-safe:  %s\n", yesNo(res.KnownSafe))
	fmt.Fprintf(w, "dangerous:   %s\n", yesNo(res.Dangerous))
	fmt.Fprintf(w, "requirement under each approval policy (sandbox %s):\n", res.mode)
	for _, row := range []struct {
		p policy.ApprovalPolicy
		k policy.RequirementKind
	}{
		{policy.Untrusted, res.Requirements.Untrusted}, {policy.OnFailure, res.Requirements.OnFailure},
		{policy.OnRequest, res.Requirements.OnRequest}, {policy.Never, res.Requirements.Never},
	} {
		fmt.Fprintf(w, "  %-11s %-14s", row.p, row.k)
		if r := res.reasons[string(row.p)]; r != "" {
			fmt.Fprintf(w, " %s", r)
		}
		fmt.Fprintln(w)
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// shellJoin renders argv so that a shell would read it back the same way.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
