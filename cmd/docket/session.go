package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/docket-engine/docket/cmd/docket/internal/approve"
	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/cmd/docket/internal/render"
	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/auth"
	"github.com/docket-engine/docket/engine/mcp"
	"github.com/docket-engine/docket/engine/mcpserve"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/openai"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/prompt"
	"github.com/docket-engine/docket/engine/rulesfile"
	"github.com/docket-engine/docket/engine/session"
	ws "github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/states/policy"
)

// version is Docket's version, recorded in every journal.
const version = session.DocketVersion

// wiring is what a session needs from the command line, built once for
// exec, resume, chat and agents run: the options of the session it opens
// (engine/session), and the terminal's observer and approver.
type wiring struct {
	opts     session.Options
	observer engine.Observer
	// human is the observer in human mode, nil with --json; jsonl the
	// observer with --json.
	human *render.Human
	jsonl *render.JSONL
	// finish closes the terminal's side (the prompt, the renderer) after
	// the session closed.
	finish func() error
}

// header prints the session's header in human mode.
func (w *wiring) header(id, cwd string, sc events.SessionConfig, resumed, bypassed bool, extra []string) {
	if w.human == nil {
		return
	}
	w.human.WriteHeader(render.Header{SessionID: id, Model: sc.Model, Provider: sc.ModelProvider,
		// network_access is a workspace-write setting: a read-only run
		// has no network whatever it says.
		ApprovalPolicy: sc.ApprovalPolicy, SandboxMode: sc.SandboxMode,
		NetworkAccess: sc.NetworkAccess && sc.SandboxMode == policy.WorkspaceWrite.String(),
		Resumed:       resumed, Bypassed: bypassed, Workspace: cwd, WritableRoots: extra, EgressProfile: egressProfile(w.opts.Egress)})
}

// exit maps a turn's end to an exit code. In human mode the renderer has
// already printed a failed turn's message, so it is not printed again.
func (w *wiring) exit(sessionID string, res engine.TurnResult) error {
	if w.jsonl != nil && res.Status == events.TurnParked {
		w.jsonl.Parked(sessionID, res.Parked)
	}
	err := turnExit(res)
	var ee *exitError
	if w.human != nil && errors.As(err, &ee) && res.Status != events.TurnParked {
		return &exitError{code: ee.code}
	}
	return err
}

// wireOptions are the command line's inputs to wire beyond the config.
type wireOptions struct {
	decisions string
	json      bool
	// jsonExt is --json-extensions: Docket's events in the JSONL stream.
	jsonExt bool
	// color is --color: always, never or auto ("" is auto).
	color string
	// addDirs are --add-dir's extra writable roots.
	addDirs []string
	// outputSchema is --output-schema's JSON Schema for the final message.
	outputSchema []byte
	// bypass is --dangerously-bypass-approvals-and-sandbox, recorded as a
	// setting of the session.
	bypass bool
	// observer and approver, when set, replace the terminal's renderer and
	// prompt (the interactive UI brings its own).
	observer engine.Observer
	approver engine.Approver
	// subagents offers spawn_agent even when [subagents] enabled is off.
	subagents bool
}

// wire turns the configuration into the options of a session
// (engine/session): model, policy, rules, hooks, MCP servers, and the
// terminal's approver and observer.
func wire(ctx context.Context, a *app, cfg *config.Config, cwd string, o wireOptions) (*wiring, error) {
	w := &wiring{finish: func() error { return nil }}
	if o.jsonExt && !o.json {
		return nil, usageErrorf("--json-extensions adds events to the --json stream: give --json too")
	}
	list, err := approve.ParseAnswers(o.decisions)
	if err != nil {
		return nil, usageErrorf("--decisions: %v", err)
	}
	color, err := useColor(o.color, a.stderr)
	if err != nil {
		return nil, err
	}
	mdl, err := buildModel(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var appr engine.Approver = approve.NewAddressedFlags(list)
	interactive := false
	if o.approver != nil {
		appr = o.approver
	} else if f, ok := a.stdin.(*os.File); ok {
		auto := approve.NewAddressedAuto(f, list)
		auto.SetColor(color)
		appr, interactive = auto, auto.Interactive()
		prev := w.finish
		w.finish = func() error { return errors.Join(auto.Close(), prev()) }
	}
	if o.observer != nil {
		w.observer = o.observer
	} else if o.json {
		j := render.NewJSONLWith(a.stdout, render.JSONLOptions{Extensions: o.jsonExt})
		w.observer, w.jsonl = j, j
	} else {
		progress := false
		if f, ok := a.stderr.(*os.File); ok {
			progress = render.IsTerminal(f)
		}
		human := render.NewHuman(a.stdout, a.stderr, render.HumanOptions{Color: color, Prompted: interactive, Progress: progress})
		w.observer, w.human = human, human
		prev := w.finish
		w.finish = func() error { human.Close(); return prev() }
	}
	tools, err := builtinTools(cfg)
	if err != nil {
		return nil, err
	}
	srcs, err := loadRules(ctx, cfg.ConfigHome, rulesProject(cfg, cwd))
	if err != nil {
		return nil, err
	}
	sc := cfg.SessionConfig()
	if len(o.addDirs) > 0 {
		if sc.SandboxMode != policy.WorkspaceWrite.String() {
			fmt.Fprintf(a.stderr, "docket: --add-dir has no effect in sandbox mode %s (only in workspace-write)\n", sc.SandboxMode)
		}
		sc.WritableRoots = append(sc.WritableRoots, o.addDirs...)
	}
	if _, err := policy.ParseSandboxMode(sc.SandboxMode); err != nil {
		return nil, usageErrorf("%v", err)
	}
	docMax := cfg.ProjectDocMaxBytes
	if docMax <= 0 {
		docMax = -1 // 0 in the configuration leaves AGENTS.md out
	}
	env, keepSecrets := commandEnv(cfg)
	// Hooks run as the user: their environment is the user's layers'
	// policy, never a project's (config.Config.HookEnvironmentPolicy).
	hookEnv, hookKeep := cfg.HookEnvironmentPolicy.Build(os.Environ())
	pre, post := cfg.Hooks.Specs()
	stderr := a.stderr
	w.opts = session.Options{
		Workspace: cwd, Model: mdl, Approver: appr, Observer: w.observer, Policy: sc,
		Home: cfg.Home, Rules: srcs, Tools: tools, Env: env, KeepSecretEnv: keepSecrets,
		Prompt:     prompt.Input{Home: cfg.ConfigHome, ProjectDocMaxBytes: docMax, FallbackFilenames: cfg.ProjectDocFallbackFilenames},
		Limits:     cfg.Sandbox.Limits(),
		AdjustPlan: func(plan events.SandboxPlan) (events.SandboxPlan, error) { return adjustPlan(plan, cfg) },
		PreHooks:   pre, PostHooks: post, HookEnv: hookEnv, HookKeepSecretEnv: hookKeep,
		Subagents: cfg.Subagents.Enabled || o.subagents, RiskAssessment: cfg.ExperimentalRiskAssessment,
		Settings: settings(cfg, o), OutputSchema: o.outputSchema, ApprovalTimeout: cfg.ApprovalTimeout(),
		Faults: faultsFromEnv(), DocketVersion: version, Egress: sessionEgress(cfg),
		WrapLog: func(ctx context.Context, id string, log engine.Log, earlier []events.Record) (engine.Log, func() error, error) {
			return startTelemetry(ctx, stderr, cfg, id, log, earlier)
		},
		Warn: func(msg string) { fmt.Fprintf(stderr, "docket: %s\n", msg) },
	}
	if len(cfg.MCPServers) > 0 {
		w.opts.MCPServers, w.opts.MCPOptions = mcpServers(cfg), mcpOptions(cfg, cwd)
	}
	return w, nil
}

// open starts the session wired, with the CLI's exit codes when it cannot.
func (w *wiring) open(ctx context.Context) (*session.Session, error) {
	s, err := session.Open(ctx, w.opts)
	return s, sessionError(err)
}

// sessionError gives the session package's errors the CLI's exit codes: a
// bad option (an MCP server's configuration) is a usage error.
func sessionError(err error) error {
	var oe *session.OptionError
	if errors.As(err, &oe) {
		return usageErrorf("%v", err)
	}
	return err
}

func buildModel(ctx context.Context, cfg *config.Config) (model.Model, error) {
	if name, ok := strings.CutPrefix(cfg.ModelProvider, config.AgentProviderPrefix); ok {
		return agentProvider(cfg, name), nil
	}
	switch cfg.ModelProvider {
	case mcpserve.Provider:
		// An MCP client's session (docket mcp-server): its calls came from
		// the client; resumed, the relay finishes a parked one.
		return mcpserve.RelayModel{}, nil
	case "script":
		if cfg.ModelScript == "" {
			return nil, usageErrorf("model_provider \"script\" needs --model-script FILE")
		}
		m, err := script.Load(cfg.ModelScript)
		if err != nil {
			var le *script.LineError
			if errors.As(err, &le) || errors.Is(err, os.ErrNotExist) {
				return nil, usageErrorf("%v", err)
			}
			return nil, err
		}
		// A resumed session skips the lines already journaled
		// (session.Resume).
		return m, nil
	default:
		pc := openai.DefaultConfig()
		if p, ok := cfg.ModelProviders[cfg.ModelProvider]; ok {
			pc.Name = cfg.ModelProvider
			if p.BaseURL != "" {
				pc.BaseURL = p.BaseURL
			}
			// A provider without env_key (a local server: Ollama, LM
			// Studio) needs no credentials.
			pc.EnvKey = p.EnvKey
			if p.WireAPI != "" {
				pc.WireAPI = p.WireAPI
			}
			n := int(p.RequestMaxRetries) // 0 means no retries
			pc.RequestMaxRetries = &n
			if p.StreamMaxRetries != nil {
				s := int(*p.StreamMaxRetries)
				pc.StreamMaxRetries = &s
			}
			pc.StreamIdleTimeoutMs = p.StreamIdleTimeoutMs
			pc.HTTPHeaders, pc.EnvHTTPHeaders, pc.QueryParams = p.HTTPHeaders, p.EnvHTTPHeaders, p.QueryParams
		}
		pc.Model = cfg.Model
		pc.Reasoning = openai.Reasoning{Effort: cfg.ModelReasoningEffort, Summary: cfg.ModelReasoningSummary, Verbosity: cfg.ModelVerbosity}
		var opts []openai.Option
		// `docket login` signs in to OpenAI: its token goes to the openai
		// provider only, never to another server's base_url.
		if cfg.ModelProvider == config.ProviderOpenAI {
			if ts, err := auth.NewTokenSource(ctx, auth.NewStore(cfg.Home), nil); err == nil {
				opts = append(opts, openai.WithTokenSource(ts))
			} else if !errors.Is(err, auth.ErrNotLoggedIn) {
				return nil, err
			}
		}
		p, err := openai.New(pc, opts...)
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		return p, nil
	}
}

func mcpServers(cfg *config.Config) map[string]mcp.ServerConfig {
	out := make(map[string]mcp.ServerConfig, len(cfg.MCPServers))
	for name, s := range cfg.MCPServers {
		out[name] = mcp.ServerConfig{Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd,
			StartupTimeoutSec: s.StartupTimeoutSec, ToolTimeoutSec: s.ToolTimeoutSec, EnabledTools: s.EnabledTools,
			DisabledTools: s.DisabledTools, SupportsParallelToolCalls: s.SupportsParallelToolCalls, Approval: s.Approval,
			Sandbox: s.Sandbox, Enabled: s.Enabled, URL: s.URL, BearerTokenEnvVar: s.BearerTokenEnvVar,
			HTTPHeaders: s.HTTPHeaders, EnvHTTPHeaders: s.EnvHTTPHeaders}
	}
	return out
}

// loadRules reads the rules files in force (rulesfile.InForce), with the
// CLI's exit codes: an interrupt fails, a bad rules file is a usage error.
func loadRules(ctx context.Context, home, project string) ([]events.RuleSource, error) {
	srcs, err := rulesfile.InForce(ctx, home, project)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, &exitError{code: exitFailed, err: fmt.Errorf("interrupted while loading the rules: %w", err)}
		}
		return nil, &exitError{code: exitUsage, err: err}
	}
	return srcs, nil
}

// workspace resolves -C to an existing absolute directory.
func workspace(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usageErrorf("workspace %s: %v", dir, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", usageErrorf("workspace %s does not exist", dir)
	}
	if !info.IsDir() {
		return "", usageErrorf("workspace %s is not a directory", dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// turnExit maps a turn's end to the exit codes of docs/cli.md, printing what a
// person needs for a parked session.
func turnExit(res engine.TurnResult) error {
	switch res.Status {
	case events.TurnCompleted:
		return nil
	case events.TurnParked:
		// The renderers have said which call waits and how to go on.
		return &exitError{code: exitParked}
	}
	return &exitError{code: exitFailed, err: fmt.Errorf("turn %s: %s", res.Status, res.Message)}
}

// readPrompt returns the prompt, reading stdin for "-".
func readPrompt(a *app, p string) (string, error) {
	if p != "-" {
		return p, nil
	}
	b, err := io.ReadAll(a.stdin)
	if err != nil {
		return "", fmt.Errorf("read prompt from stdin: %w", err)
	}
	return string(b), nil
}

// mcpOptions starts MCP servers in the workspace; a server with
// sandbox = true runs under a workspace-write plan for its cwd with the
// network off (writable roots: the cwd and /tmp; .git, .docket and .agents
// read-only).
func mcpOptions(cfg *config.Config, cwd string) mcp.Options {
	return mcp.Options{Dir: cwd, SandboxPlan: func(server, dir string) (events.SandboxPlan, error) {
		// session.Plan as a session's own calls get it ($DOCKET_HOME
		// read-only, the [sandbox] limits), and the Codex home read in
		// its place as protected (adjustPlan).
		plan, err := session.Plan(events.SessionConfig{SandboxMode: policy.WorkspaceWrite.String(), TmpdirEnv: cfg.Tmpdir,
			RequireProtectedPaths: cfg.Sandbox.RequireProtectedPaths}, dir, cfg.Home, cfg.Sandbox.Limits())
		if err != nil {
			return events.SandboxPlan{}, err
		}
		plan = protectConfigFiles(plan, cfg)
		// A server lives for the session: a CPU-time budget per process
		// would end it after enough requests, not when it runs away.
		plan.Limits.MaxCPUSeconds = 0
		return plan, nil
	}}
}

// sessionPlan is the plan a session under cfg with policy sc runs its
// calls in cwd under: session.BuildPlan with what wire gives session.Open
// (the [sandbox] limits, adjustPlan, the egress proxy of sessionEgress).
func sessionPlan(cfg *config.Config, sc events.SessionConfig, cwd string) (events.SandboxPlan, error) {
	adjust := func(plan events.SandboxPlan) (events.SandboxPlan, error) { return adjustPlan(plan, cfg) }
	return session.BuildPlan(sc, cwd, cfg.Home, cfg.Sandbox.Limits(), adjust, sessionEgress(cfg) != nil)
}

// protectConfigFiles keeps read-only in plan the Codex home read in place
// of Docket's and a trusted project hook's program files: no command of
// the session may rewrite one between its check and its run.
func protectConfigFiles(plan events.SandboxPlan, cfg *config.Config) events.SandboxPlan {
	plan = ws.ProtectHome(plan, cfg.CodexHome)
	for _, f := range cfg.HookProgramFiles() {
		plan = ws.ProtectHome(plan, f)
	}
	return plan
}

// adjustPlan is what the configuration adds to a session's plan
// (session.Options.AdjustPlan, and a /permissions switch): the Codex home
// read in place of Docket's, which holds the config and rules in force,
// as protected as Docket's own; the profile's allow_local_binding for a
// network through the egress proxy; the paths the profile hides.
func adjustPlan(plan events.SandboxPlan, cfg *config.Config) (events.SandboxPlan, error) {
	plan = protectConfigFiles(plan, cfg)
	if r := cfg.PermissionProfile; r != nil && cfg.Egress && plan.Sandboxed() {
		plan.LocalBinding = r.Network.AllowLocalBinding
	}
	return hidePlan(plan, cfg)
}

// settings are the configuration's recorded settings plus what the command
// line adds that the audit must be able to name.
func settings(cfg *config.Config, o wireOptions) []events.Setting {
	out := append(cfg.Settings(), modelScriptSettings(cfg)...)
	if st, ok := config.ProjectAdditionsRecord(cfg.ProjectAdditions); ok {
		// What a project's config added that runs code, kept with the
		// session (docs/decisions.md, project config power).
		out = append(out, st)
	}
	if st, ok := config.HooksUntrustedRecord(cfg.HookReviews); ok {
		// The project hooks that did not run for want of the user's
		// review: "did not run: untrusted" is not "no hook".
		out = append(out, st)
	}
	if o.bypass {
		out = append(out, events.Setting{Key: bypassSetting, Value: "true (--dangerously-bypass-approvals-and-sandbox)"})
	}
	return out
}

// useColor decides --color: always, never, or auto (a terminal on stderr,
// and NO_COLOR unset, https://no-color.org).
func useColor(mode string, stderr io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		if os.Getenv("NO_COLOR") != "" {
			return false, nil
		}
		f, ok := stderr.(*os.File)
		return ok && render.IsTerminal(f), nil
	}
	return false, usageErrorf("--color %q: want always, never or auto", mode)
}
