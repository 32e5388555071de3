package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/cmd/docket/internal/render"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commonFlags are the configuration flags exec and resume share.
type commonFlags struct {
	model, approval, sandbox, cd, profile, modelScript, decisions, home string
	overrides                                                           []string
	json, jsonExtensions                                                bool
	permissions                                                         string
	oss                                                                 bool
	localProvider                                                       string
}

func (f *commonFlags) registerOn(fl *pflag.FlagSet) {
	fl.StringVarP(&f.model, "model", "m", "", "model name")
	fl.StringVarP(&f.approval, "ask-for-approval", "a", "", "approval policy: untrusted, on-failure, on-request, never")
	fl.StringVarP(&f.sandbox, "sandbox", "s", "", "sandbox mode: read-only, workspace-write, danger-full-access")
	fl.StringVarP(&f.cd, "cd", "C", "", "workspace root (default: current directory)")
	fl.BoolVar(&f.json, "json", false, "JSONL events on stdout, as codex exec --json emits them")
	fl.BoolVar(&f.jsonExtensions, "json-extensions", false, "with --json, add Docket's events: call.transition, approval.requested, session.parked, item.updated, context.* (docs/codex-differences.md)")
	fl.StringArrayVarP(&f.overrides, "config", "c", nil, "override one config key: KEY=VALUE (VALUE parsed as TOML)")
	fl.StringVarP(&f.profile, "profile", "p", "", "the profile NAME: NAME.config.toml beside config.toml, or [profiles.NAME]")
	fl.StringVar(&f.modelScript, "model-script", "", "use the scripted model provider with this JSONL file")
	fl.StringVar(&f.permissions, "permissions", "", "permission profile: :read-only, :workspace, :danger-full-access or a [permissions.NAME] (wins over sandbox_mode from files; not with --sandbox)")
	fl.StringVar(&f.decisions, "decisions", "", "comma-separated answers for approval requests, in order; CALL_ID=DECISION or NAME/CALL_ID=DECISION (a subagent's call) answers that call")
	fl.StringVar(&f.home, "home", "", "Docket's home (default $DOCKET_HOME, else ~/.docket)")
	fl.BoolVar(&f.oss, "oss", false, "use a local model server: --local-provider, else oss_provider, else ollama (model gpt-oss:20b unless one is chosen)")
	fl.StringVar(&f.localProvider, "local-provider", "", "the local provider for --oss: ollama or lmstudio (implies --oss)")
}

// load applies every configuration layer.
func (f *commonFlags) load(c *cobra.Command) (*config.Config, error) {
	return f.loadWith(c, config.Flags{})
}

// loadWith applies every configuration layer; flags the caller fixed
// (--dangerously-bypass-approvals-and-sandbox) come in pre-set.
func (f *commonFlags) loadWith(c *cobra.Command, flags config.Flags) (*config.Config, error) {
	// The workspace's [projects] trust decides whether its own config and
	// rules load; a -C that does not exist is reported by the command.
	cwd, _ := workspace(f.cd)
	return f.loadAt(c, flags, cwd, nil)
}

// loadAt is loadWith for the workspace cwd, printing the warnings but not
// those already printed (a resume loads again for its session's workspace).
func (f *commonFlags) loadAt(c *cobra.Command, flags config.Flags, cwd string, printed []string) (*config.Config, error) {
	set := func(name string, v *string) *string {
		if c.Flags().Changed(name) {
			return v
		}
		return nil
	}
	if flags.Model == nil {
		flags.Model = set("model", &f.model)
	}
	if flags.ApprovalPolicy == nil {
		flags.ApprovalPolicy = set("ask-for-approval", &f.approval)
	}
	if flags.SandboxMode == nil {
		flags.SandboxMode = set("sandbox", &f.sandbox)
	}
	flags.ModelScript = set("model-script", &f.modelScript)
	flags.Permissions = set("permissions", &f.permissions)
	flags.OSS = f.oss
	flags.LocalProvider = set("local-provider", &f.localProvider)
	cfg, err := config.Load(config.LoadOptions{Home: f.home, Profile: f.profile, Env: os.Getenv, Overrides: f.overrides, Flags: flags, Cwd: cwd,
		RequirementsFiles: testRequirementsFiles()})
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	fresh := *cfg
	fresh.Warnings = slices.DeleteFunc(slices.Clone(cfg.Warnings), func(w string) bool { return slices.Contains(printed, w) })
	printWarnings(c.ErrOrStderr(), &fresh)
	return cfg, nil
}

// execFlags are exec's flags: the shared ones plus Codex's exec flags.
// `docket exec resume` inherits them, as Codex's does.
type execFlags struct {
	commonFlags
	skipGitRepoCheck, ephemeral, bypass bool
	addDirs, images                     []string
	outputLastMessage, outputSchema     string
	color                               string
}

func (f *execFlags) registerOn(fl *pflag.FlagSet) {
	f.commonFlags.registerOn(fl)
	fl.BoolVar(&f.skipGitRepoCheck, "skip-git-repo-check", false, "run even when the workspace is not inside a git repository")
	fl.StringArrayVar(&f.addDirs, "add-dir", nil, "another writable root besides the workspace (repeatable; workspace-write only)")
	fl.StringVarP(&f.outputLastMessage, "output-last-message", "o", "", "write the model's final message to FILE")
	fl.StringVar(&f.outputSchema, "output-schema", "", "JSON Schema FILE the model's final message must follow")
	fl.StringArrayVarP(&f.images, "image", "i", nil, "attach an image FILE to the prompt (png, jpeg, gif, webp; repeatable)")
	fl.BoolVar(&f.ephemeral, "ephemeral", false, "keep no journal after the run (no resume, no audit, no replay)")
	fl.StringVar(&f.color, "color", "auto", "colour on stderr: always, never, auto")
	fl.BoolVar(&f.bypass, "dangerously-bypass-approvals-and-sandbox", false,
		"run every command without asking and without the sandbox (approval never, sandbox danger-full-access); journaled and audited as such")
}

func newExecCmd(a *app) *cobra.Command {
	f := &execFlags{}
	c := &cobra.Command{
		Use:   "exec [flags] [PROMPT]",
		Short: "Run one agent turn (PROMPT \"-\" reads stdin)",
		Long: `Run one agent turn in the workspace (-C, default the current directory).

The prompt is the argument; "-", or no argument with stdin not a terminal,
reads it from stdin. The workspace must be inside a git repository unless
--skip-git-repo-check is given, so that the agent's changes can be reviewed
and undone.

docket exec resume SESSION|--last [PROMPT] continues a session, as Codex's
exec resume does.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) (err error) {
			return runExec(c, a, f, args)
		},
	}
	f.registerOn(c.PersistentFlags())
	c.AddCommand(newResumeSubcommand(a, f, "resume [SESSION|--last] [PROMPT]", "Continue a session (Codex's spelling of docket resume)"))
	return c
}

// bypassFlags are the configuration flags --dangerously-bypass-approvals-
// and-sandbox sets (approval never, sandbox danger-full-access), refused
// beside -a or -s; none without it.
func bypassFlags(c *cobra.Command, bypass bool) (config.Flags, error) {
	var flags config.Flags
	if !bypass {
		return flags, nil
	}
	if c.Flags().Changed("ask-for-approval") || c.Flags().Changed("sandbox") {
		return flags, usageErrorf("--dangerously-bypass-approvals-and-sandbox sets the approval policy and sandbox itself; drop -a/-s")
	}
	never, full := policy.Never.String(), policy.DangerFullAccess.String()
	flags.ApprovalPolicy, flags.SandboxMode = &never, &full
	return flags, nil
}

func runExec(c *cobra.Command, a *app, f *execFlags, args []string) (err error) {
	flags, err := bypassFlags(c, f.bypass)
	if err != nil {
		return err
	}
	if !f.bypass && !c.Flags().Changed("ask-for-approval") && !overridesKey(f.overrides, "approval_policy") {
		// codex exec runs with approval never whatever the config says;
		// parking is for a policy chosen on the command line.
		never := policy.Never.String()
		flags.ExecApproval = &never
	}
	cfg, err := f.loadWith(c, flags)
	if err != nil {
		return err
	}
	prompt, cwd, err := promptAndWorkspace(a, args, f.cd, f.skipGitRepoCheck, cfg)
	if err != nil {
		return err
	}
	opts, err := f.turnOptions()
	if err != nil {
		return err
	}
	input, err := opts.input(a.stderr, cwd, prompt)
	if err != nil {
		return err
	}
	roots, err := addDirs(f.addDirs)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	w, err := wire(ctx, a, cfg, cwd, wireOptions{decisions: f.decisions, json: f.json, jsonExt: f.jsonExtensions, color: f.color,
		addDirs: roots, outputSchema: opts.schema, bypass: f.bypass})
	if err != nil {
		return err
	}
	defer closing(&err, "the terminal", w.finish)
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	w.opts.SessionID = id.String()
	if f.ephemeral {
		tmp, err := os.MkdirTemp("", "docket-ephemeral-")
		if err != nil {
			return fmt.Errorf("--ephemeral: %w", err)
		}
		// Registered before the session's close, so it runs after it. Best
		// effort: a leftover temp directory is the worst a failure leaves.
		defer func() { _ = os.RemoveAll(tmp) }()
		// The journal and the subagents' journals go there.
		w.opts.JournalHome = tmp
		fmt.Fprintf(a.stderr, "docket: --ephemeral: session %s is journaled in %s and deleted at exit: it cannot be resumed, audited or replayed, and a crash leaves no record of what ran\n", w.opts.SessionID, tmp)
	}
	s, err := w.open(ctx)
	if err != nil {
		return err
	}
	// Close commits the journal (a failure there loses records), then
	// stops the sandbox servers, processes and MCP servers.
	defer closing(&err, "the session", s.Close)
	w.header(s.ID(), cwd, s.Config().Session, false, f.bypass, roots)
	res, err := s.TurnWithInput(ctx, input)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return &exitError{code: exitFailed, err: errors.New("interrupted")}
		}
		return err
	}
	if res.Status == events.TurnParked && f.ephemeral {
		fmt.Fprintln(a.stderr, "docket: --ephemeral: the parked session is deleted with its journal; run again without --ephemeral, or answer with --decisions")
	}
	if err := opts.writeLastMessage(res); err != nil {
		return err
	}
	notifyTurn(ctx, a.stderr, cfg, s.ID(), cwd, prompt, res)
	return w.exit(s.ID(), res)
}

// overridesKey reports whether one of the -c KEY=VALUE arguments sets key
// (at the top level or in a profile).
func overridesKey(overrides []string, key string) bool {
	for _, o := range overrides {
		k, _, _ := strings.Cut(o, "=")
		k = strings.TrimSpace(k)
		if k == key || (strings.HasPrefix(k, "profiles.") && strings.HasSuffix(k, "."+key)) {
			return true
		}
	}
	return false
}

// howToPrompt is what a missing or empty prompt says.
const howToPrompt = `give the prompt as an argument (docket exec "fix the failing test"), or "-" to read it from stdin (echo "fix the failing test" | docket exec -)`

// execPrompt takes the prompt from the argument, or from stdin for "-" or
// when there is no argument and stdin is not a terminal (as Codex does).
func execPrompt(a *app, args []string) (string, error) {
	var prompt string
	switch {
	case len(args) == 1:
		p, err := readPrompt(a, args[0])
		if err != nil {
			return "", err
		}
		prompt = p
		if args[0] != "-" && stdinPiped(a) {
			in, err := readPrompt(a, "-")
			if err != nil {
				return "", err
			}
			prompt = withStdin(prompt, in)
		}
	case stdinIsPipe(a):
		p, err := readPrompt(a, "-")
		if err != nil {
			return "", err
		}
		prompt = p
	default:
		return "", usageErrorf("no prompt: %s", howToPrompt)
	}
	if strings.TrimSpace(prompt) == "" {
		return "", usageErrorf("the prompt is empty: %s", howToPrompt)
	}
	return prompt, nil
}

// withStdin appends piped input to the prompt as codex exec does: a
// <stdin> block after a blank line. Empty input adds nothing.
func withStdin(prompt, in string) string {
	if in == "" {
		return prompt
	}
	if !strings.HasSuffix(in, "\n") {
		in += "\n"
	}
	return prompt + "\n\n<stdin>\n" + in + "</stdin>"
}

// stdinPiped reports whether stdin is a pipe or a regular file: input
// given on purpose, unlike a terminal or /dev/null.
func stdinPiped(a *app) bool {
	f, ok := a.stdin.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && (st.Mode()&os.ModeNamedPipe != 0 || st.Mode().IsRegular())
}

// stdinIsPipe reports whether stdin is a file that is not a terminal.
func stdinIsPipe(a *app) bool {
	f, ok := a.stdin.(*os.File)
	return ok && !render.IsTerminal(f)
}

// promptAndWorkspace reads the prompt (argument or stdin) and resolves the
// workspace (-C), refusing one outside a git repository unless told to skip
// the check or, as Codex, the project is trusted in [projects].
func promptAndWorkspace(a *app, args []string, cd string, skipGitRepoCheck bool, cfg *config.Config) (prompt, cwd string, err error) {
	if prompt, err = execPrompt(a, args); err != nil {
		return "", "", err
	}
	if cwd, err = workspace(cd); err != nil {
		return "", "", err
	}
	if !skipGitRepoCheck && !cfg.Trust.Trusted() {
		if err := checkGitRepo(cwd); err != nil {
			return "", "", err
		}
	}
	return prompt, cwd, nil
}
