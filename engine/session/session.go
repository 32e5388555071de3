package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/mcp"
	"github.com/docket-engine/docket/engine/prompt"
	"github.com/docket-engine/docket/engine/rulesfile"
	ws "github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
	"github.com/docket-engine/docket/states/policy"
	"github.com/google/uuid"
)

// Session is an open session: the engine's session, its journal and what
// runs its calls. Turns run one at a time; Close ends it.
type Session struct {
	eng     *engine.Session
	journal *journal.Journal
	cfg     engine.Config
	mcp     *mcp.Manager
	// finish stops what the session started (telemetry, sandbox servers,
	// long-lived processes, MCP servers), before and after the journal
	// closes.
	beforeJournal, afterJournal func() error
	resumed                     bool
	// path is the journal's file, kept after Close.
	path string
}

// Open starts a new session in o.Workspace and records its start durably
// in a new journal. Close it when done.
func Open(ctx context.Context, o Options) (*Session, error) {
	if o.Model == nil {
		return nil, errors.New("session: Options.Model is required")
	}
	cwd, err := Workspace(o.Workspace)
	if err != nil {
		return nil, err
	}
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if o.SessionID == "" {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("session: a session id: %w", err)
		}
		o.SessionID = id.String()
	}
	p := o.Policy
	if p.ApprovalPolicy == "" {
		p.ApprovalPolicy = policy.OnRequest.String()
	}
	if p.SandboxMode == "" {
		p.SandboxMode = policy.WorkspaceWrite.String()
	}
	plan, err := BuildPlan(p, cwd, o.Home, o.Limits, o.AdjustPlan, o.Egress != nil)
	if err != nil {
		return nil, err
	}
	plan, o.Egress = RouteNetwork(plan, o.Egress)
	rules := o.Rules
	if rules == nil {
		if rules, err = rulesfile.InForce(ctx, o.Home, o.RulesProject); err != nil {
			return nil, &RulesError{Err: err}
		}
	}
	instr := o.Instructions
	if instr == "" {
		in := o.Prompt
		in.Cwd, in.ApprovalPolicy, in.SandboxMode, in.WritableRoots, in.NetworkAccess, in.EgressProxy = cwd, p.ApprovalPolicy, p.SandboxMode, plan.WritableRoots, p.NetworkAccess, plan.Egress
		if in.Home == "" {
			in.Home = o.Home
		}
		switch {
		case in.ProjectDocMaxBytes == 0:
			in.ProjectDocMaxBytes = DefaultProjectDocMaxBytes
		case in.ProjectDocMaxBytes < 0:
			in.ProjectDocMaxBytes = 0
		}
		res, err := prompt.Build(in)
		if err != nil {
			return nil, err
		}
		instr = res.Instructions
	}
	s := &Session{}
	cfg, err := s.wire(ctx, &o, cwd, sharedTempRoots(p, cwd))
	if err != nil {
		return nil, errors.Join(err, s.finish())
	}
	cfg.SessionID, cfg.Session, cfg.Plan, cfg.Rules, cfg.Instructions, cfg.Settings, cfg.Egress = o.SessionID, p, plan, rules, instr, o.Settings, o.Egress
	j, err := journal.Create(o.JournalHome, o.SessionID, time.Now())
	if err != nil {
		return nil, errors.Join(err, s.finish())
	}
	s.journal, s.path = j, j.Path()
	log, err := s.wrap(ctx, &o, nil)
	if err != nil {
		return nil, errors.Join(err, s.close())
	}
	s.cfg = cfg
	if s.eng, err = engine.Start(cfg, log); err != nil {
		return nil, errors.Join(err, s.close())
	}
	return s, nil
}

// defaults fills Home and JournalHome.
func (o *Options) defaults() error {
	if o.Home == "" {
		h, err := DefaultHome()
		if err != nil {
			return err
		}
		o.Home = h
	}
	if o.JournalHome == "" {
		o.JournalHome = o.Home
	}
	return nil
}

// wrap puts Options.WrapLog around the journal.
func (s *Session) wrap(ctx context.Context, o *Options, earlier []events.Record) (engine.Log, error) {
	if o.WrapLog == nil {
		return s.journal, nil
	}
	log, stop, err := o.WrapLog(ctx, o.SessionID, s.journal, earlier)
	if err != nil {
		return nil, err
	}
	prev := s.beforeJournal
	s.beforeJournal = func() error { return errors.Join(stop(), call(prev)) }
	return log, nil
}

// RulesError is a rules file that could not be loaded: a session fails
// closed rather than start without the rules in force.
type RulesError struct{ Err error }

func (e *RulesError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *RulesError) Unwrap() error { return e.Err }

// RouteNetwork is the one place the rule lives that a profile whose
// network is on (eg set) sends a sandboxed plan's network through the
// session's egress proxy: the plan gets an empty network namespace with a
// bridge (Network off, Egress on). An unsandboxed plan has no namespace to
// bridge, so nothing goes through a proxy and eg comes back nil. A
// session's start and a /permissions switch both call it.
func RouteNetwork(plan events.SandboxPlan, eg *engine.Egress) (events.SandboxPlan, *engine.Egress) {
	if eg == nil || !plan.Sandboxed() {
		return plan, nil
	}
	return ProxiedPlan(plan), eg
}

// ProxiedPlan is a sandboxed plan whose network goes through the egress
// proxy: the command's network off (an empty namespace, Landlock and
// seccomp as for no network) but for the bridge. An unsandboxed plan is
// returned as it is. `docket sandbox --permissions` uses it too, so a
// profile's command is confined alike wherever it runs.
func ProxiedPlan(plan events.SandboxPlan) events.SandboxPlan {
	if plan.Sandboxed() {
		plan.Network, plan.Egress = false, true
	}
	return plan
}

// Plan is the sandbox plan a session with policy p in workspace cwd
// records: the policy's writable roots and protected paths, Docket's home
// read-only when it lies in a writable root, and limits on each command.
func Plan(p events.SessionConfig, cwd, home string, limits events.ResourceLimits) (events.SandboxPlan, error) {
	mode, err := policy.ParseSandboxMode(p.SandboxMode)
	if err != nil {
		return events.SandboxPlan{}, err
	}
	sp := policy.SandboxPolicy{Mode: mode, WritableRoots: p.WritableRoots, NetworkAccess: p.NetworkAccess,
		ExcludeTmpdirEnvVar: p.ExcludeTmpdirEnvVar, ExcludeSlashTmp: p.ExcludeSlashTmp}
	plan := ws.SandboxPlan(sp, cwd, p.TmpdirEnv, p.RequireProtectedPaths)
	if !plan.Sandboxed() {
		return plan, nil
	}
	plan.Limits = limits
	return ws.ProtectHome(plan, home), nil
}

// BuildPlan is the plan a session's calls run under, built the one way
// every caller needs it (a session's start, and `docket sandbox
// --permissions`, which must try a profile exactly as a session runs it):
// Plan, then what the caller's configuration adds (adjust, may be nil:
// Options.AdjustPlan), then, when the session has an egress proxy, a
// sandboxed plan's network through it (plan.Egress says it is).
func BuildPlan(p events.SessionConfig, cwd, home string, limits events.ResourceLimits, adjust func(events.SandboxPlan) (events.SandboxPlan, error), egress bool) (events.SandboxPlan, error) {
	plan, err := Plan(p, cwd, home, limits)
	if err != nil {
		return events.SandboxPlan{}, err
	}
	if adjust != nil {
		if plan, err = adjust(plan); err != nil {
			return events.SandboxPlan{}, err
		}
	}
	if egress {
		plan = ProxiedPlan(plan)
	}
	return plan, nil
}

// Turn runs one turn with prompt as the user's message.
func (s *Session) Turn(ctx context.Context, prompt string) (engine.TurnResult, error) {
	return s.eng.Turn(ctx, prompt)
}

// TurnWithInput runs one turn with images and attachments besides the text.
func (s *Session) TurnWithInput(ctx context.Context, in engine.TurnInput) (engine.TurnResult, error) {
	return s.eng.TurnWithInput(ctx, in)
}

// Pending reports whether a resumed session has an unfinished turn: one a
// crash interrupted or one parked on an approval.
func (s *Session) Pending() bool {
	_, _, ok := s.eng.Pending()
	return ok
}

// Continue finishes the unfinished turn of a resumed session.
func (s *Session) Continue(ctx context.Context) (engine.TurnResult, error) {
	return s.eng.Continue(ctx)
}

// ID is the session's id.
func (s *Session) ID() string { return s.cfg.SessionID }

// Workspace is the session's workspace.
func (s *Session) Workspace() string { return s.cfg.Cwd }

// JournalPath is the journal's file: what docket audit, resume and replay
// take, and what replay/replaytest verifies.
func (s *Session) JournalPath() string { return s.path }

// Records are the records the journal holds now, for a session still
// open (audit.Records audits them); after Close, read the journal's file.
func (s *Session) Records() ([]events.Record, error) {
	if s.journal == nil {
		return nil, errors.New("session: the session is closed: read its journal file")
	}
	return s.journal.All()
}

// Config is the configuration the session runs with: for a resumed
// session, as recorded.
func (s *Session) Config() engine.Config { return s.cfg }

// Engine is the engine's session, for what this package does not wrap
// (Compact, SetApprovalPolicy, ContextStatus).
func (s *Session) Engine() *engine.Session { return s.eng }

// MCP is the manager of the session's MCP servers; nil when it has none.
func (s *Session) MCP() *mcp.Manager { return s.mcp }

// Resumed reports whether the session was opened by Resume.
func (s *Session) Resumed() bool { return s.resumed }

// Close ends the session: it commits and closes the journal and stops the
// sandbox servers, long-lived processes and MCP servers the session
// started. A turn must not be running.
func (s *Session) Close() error { return s.close() }

func (s *Session) close() error {
	var errs []error
	if s.eng != nil && s.journal != nil {
		// The long-lived processes end with the session: killed, and each
		// end recorded while the journal is still open (the process table's
		// own close, after the journal, then finds none).
		_, err := s.eng.EndProcesses()
		errs = append(errs, err)
	}
	errs = append(errs, call(s.beforeJournal))
	s.beforeJournal = nil
	if s.journal != nil {
		// Close commits what is still buffered: a failure there loses records.
		errs = append(errs, s.journal.Close())
		s.journal = nil
	}
	errs = append(errs, s.finish())
	return errors.Join(errs...)
}

func (s *Session) finish() error {
	err := call(s.afterJournal)
	s.afterJournal = nil
	return err
}

func call(f func() error) error {
	if f == nil {
		return nil
	}
	return f()
}

// onClose adds f to what Close runs after the journal closed, before what
// was added earlier.
func (s *Session) onClose(f func() error) {
	prev := s.afterJournal
	s.afterJournal = func() error { return errors.Join(f(), call(prev)) }
}

// stubRecords is where a session records the stubs its sandbox binds, so
// that a killed process's are removed at the next start.
func stubRecords(home string) string { return filepath.Join(home, "stubs") }
