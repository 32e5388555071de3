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
	"github.com/docket-engine/docket/engine/hooks"
	"github.com/docket-engine/docket/engine/mcp"
	"github.com/docket-engine/docket/engine/mcpserve"
	"github.com/docket-engine/docket/engine/model"
	"github.com/docket-engine/docket/engine/model/openai"
	"github.com/docket-engine/docket/engine/model/risk"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/prompt"
	"github.com/docket-engine/docket/engine/rulesfile"
	"github.com/docket-engine/docket/engine/uexec"
	ws "github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/states/policy"
)

// version is Docket's version, recorded in every journal.
const version = "0.1.0"

// wiring is what a session needs from the command line, built once for
// exec and for resume.
type wiring struct {
	engine   engine.Config
	observer engine.Observer
	// human is the observer in human mode, nil with --json; jsonl the
	// observer with --json.
	human *render.Human
	jsonl *render.JSONL
	// mcpMgr runs the session's MCP servers (nil when none are
	// configured); /mcp reports them as they are, starting nothing.
	mcpMgr *mcp.Manager
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
		Resumed:       resumed, Bypassed: bypassed, Workspace: cwd, WritableRoots: extra, EgressProfile: egressProfile(w.engine.Egress)})
}

// exit maps a turn's end to an exit code. In human mode the renderer has
// already printed a failed turn's message, so it is not printed again.
func (w *wiring) exit(res engine.TurnResult) error {
	if w.jsonl != nil && res.Status == events.TurnParked {
		w.jsonl.Parked(w.engine.SessionID, res.Parked)
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
	// responsesSeen skips a scripted model past the responses a resumed
	// session already has.
	responsesSeen int
	// compactionsSeen likewise skips its compaction lines.
	compactionsSeen int
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
	// subagents offers spawn_agent even when [subagents] enabled is off: a
	// resumed session that was offered it keeps it.
	subagents bool
}

// wire builds the engine's configuration: model, approver, runner, tools,
// rules and the sandbox plan.
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
	mdl, err := buildModel(ctx, cfg, o.responsesSeen, o.compactionsSeen)
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
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the docket binary: %w", err)
	}
	helper, err := sandbox.DefaultHelperPath()
	if err != nil {
		return nil, err
	}
	caps := sandbox.Probe()
	removeLeftStubs(a.stderr, cfg)
	// One walk for git directories per session, kept while nothing it
	// depends on changed (gitwalk.Cache).
	walks := &gitwalk.Cache{}
	// One sandbox server per plan per session: the namespaces and the
	// mount layout are built once, each command gets its own PID
	// namespace, Landlock domain and seccomp filter (sandbox.Servers).
	servers := &sandbox.Servers{Binary: exe}
	prevFinish := w.finish
	w.finish = func() error { return errors.Join(servers.Close(), walks.Close(), prevFinish()) }
	// The session's long-lived processes (exec_command): they end with it.
	procs := &uexec.Table{}
	prevProcs := w.finish
	w.finish = func() error { return errors.Join(procs.Close(), prevProcs()) }
	runner := &engine.ProcessRunner{HelperPath: helper, DocketPath: exe, Caps: &caps, StubRecords: stubRecords(cfg),
		GitWalks: walks, Launcher: servers, Processes: procs}
	runner.Env, runner.KeepSecretEnv = commandEnv(cfg)
	tools, err := builtinTools(cfg)
	if err != nil {
		return nil, err
	}
	if len(cfg.MCPServers) > 0 {
		opts := mcpOptions(cfg, cwd)
		opts.StubRecords = stubRecords(cfg)
		mgr, err := mcp.NewManager(mcpServers(cfg), opts)
		if err != nil {
			return nil, usageErrorf("mcp_servers: %v", err)
		}
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintf(a.stderr, "docket: some MCP servers did not start: %v\n", err)
		}
		for _, t := range mgr.Tools() {
			tools = append(tools, engine.MCPTool{T: t})
		}
		runner.MCP = engine.MCPManager{M: mgr}
		w.mcpMgr = mgr
		prev := w.finish
		w.finish = func() error { return errors.Join(mgr.Close(), prev()) }
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
	plan, err := sessionPlan(sc, cwd)
	if err != nil {
		return nil, err
	}
	plan = hardenPlan(plan, cfg)
	if plan, err = hidePlan(plan, cfg); err != nil {
		return nil, err
	}
	plan, egr := sessionEgress(cfg, plan)
	instr, err := prompt.Build(prompt.Input{Home: cfg.ConfigHome, Cwd: cwd, ApprovalPolicy: sc.ApprovalPolicy,
		SandboxMode: sc.SandboxMode, WritableRoots: plan.WritableRoots, NetworkAccess: sc.NetworkAccess, EgressProxy: plan.Egress,
		ProjectDocMaxBytes: cfg.ProjectDocMaxBytes, FallbackFilenames: cfg.ProjectDocFallbackFilenames})
	if err != nil {
		return nil, err
	}
	w.engine = engine.Config{
		DocketVersion: version, Home: cfg.Home, Cwd: cwd, Session: sc, Settings: settings(cfg, o), Plan: plan,
		Rules: srcs, Instructions: instr.Instructions, Model: mdl, Approver: appr, Runner: runner,
		Observer: w.observer, Tools: tools, ApprovalTimeout: cfg.ApprovalTimeout(), Faults: faultsFromEnv(),
		OutputSchema: o.outputSchema, Egress: egr,
	}
	if cfg.ExperimentalRiskAssessment {
		w.engine.Risk = riskAssessor{m: mdl}
	}
	if cfg.Subagents.Enabled || o.subagents {
		w.engine.Tools = append(w.engine.Tools, engine.SpawnAgentTool{})
		host := &agentHost{home: cfg.Home, model: mdl}
		if sm, ok := mdl.(*script.Model); ok {
			host.script = sm
		}
		w.engine.Agents = host
	}
	if pre, post := cfg.Hooks.Specs(); len(pre)+len(post) > 0 {
		w.engine.Hooks = &hooks.Runner{Pre: pre, Post: post, Cwd: cwd, HelperPath: helper, Caps: &caps,
			Env: runner.Env, KeepSecretEnv: runner.KeepSecretEnv, Launcher: runner.Launcher, GitWalks: runner.GitWalks,
			StubRecords: runner.StubRecords}
	}
	return w, nil
}

// riskAssessor asks the session's model how risky a denied command is.
type riskAssessor struct{ m model.Model }

func (r riskAssessor) Assess(ctx context.Context, callID string, command []string, cwd, output string) events.RiskAssessment {
	ra := risk.AssessRisk(ctx, r.m, command, cwd, output)
	ra.CallID = callID
	return ra
}

func buildModel(ctx context.Context, cfg *config.Config, seen, compacted int) (model.Model, error) {
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
		m.Skip(seen)
		m.SkipCompactions(compacted)
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

func sessionPlan(sc events.SessionConfig, cwd string) (events.SandboxPlan, error) {
	mode, err := policy.ParseSandboxMode(sc.SandboxMode)
	if err != nil {
		return events.SandboxPlan{}, usageErrorf("%v", err)
	}
	sp := policy.SandboxPolicy{Mode: mode, WritableRoots: sc.WritableRoots, NetworkAccess: sc.NetworkAccess,
		ExcludeTmpdirEnvVar: sc.ExcludeTmpdirEnvVar, ExcludeSlashTmp: sc.ExcludeSlashTmp}
	return ws.SandboxPlan(sp, cwd, sc.TmpdirEnv, sc.RequireProtectedPaths), nil
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
		sp := policy.SandboxPolicy{Mode: policy.WorkspaceWrite}
		plan := hardenPlan(ws.SandboxPlan(sp, dir, cfg.Tmpdir, cfg.Sandbox.RequireProtectedPaths), cfg)
		// A server lives for the session: a CPU-time budget per process
		// would end it after enough requests, not when it runs away.
		plan.Limits.MaxCPUSeconds = 0
		return plan, nil
	}}
}

// hardenPlan adds what the policy leaves to the configuration: $DOCKET_HOME
// read-only when it lies in a writable root, and the [sandbox] resource
// limits, so that both are journaled with every call (write-ahead).
func hardenPlan(plan events.SandboxPlan, cfg *config.Config) events.SandboxPlan {
	if !plan.Sandboxed() {
		return plan
	}
	plan.Limits = cfg.Sandbox.Limits()
	// The Codex home read in place of Docket's holds the config and rules
	// in force: as protected as Docket's own.
	return ws.ProtectHome(ws.ProtectHome(plan, cfg.Home), cfg.CodexHome)
}

// settings are the configuration's recorded settings plus what the command
// line adds that the audit must be able to name.
func settings(cfg *config.Config, o wireOptions) []events.Setting {
	out := append(cfg.Settings(), modelScriptSettings(cfg)...)
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
