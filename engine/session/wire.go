package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/hooks"
	"github.com/docket-engine/docket/engine/mcp"
	"github.com/docket-engine/docket/engine/model/script"
	"github.com/docket-engine/docket/engine/uexec"
	ws "github.com/docket-engine/docket/engine/workspace"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/sandbox/stubs"
)

// wire builds what runs the session's calls: the runner with its sandbox
// servers, walk cache and process table, the MCP servers, the hooks, the
// subagents' host and the risk assessor. What it starts, Close stops.
// tmp are the session's shared temporary roots (sharedTempRoots).
func (s *Session) wire(ctx context.Context, o *Options, cwd string, tmp []string) (engine.Config, error) {
	tools := o.Tools
	if tools == nil {
		tools = engine.DefaultTools()
	}
	cfg := engine.Config{DocketVersion: o.DocketVersion, Home: o.Home, Cwd: cwd, Model: o.Model, Approver: o.Approver,
		Observer: o.Observer, ApprovalTimeout: o.ApprovalTimeout, Faults: o.Faults, OutputSchema: o.OutputSchema}
	if cfg.DocketVersion == "" {
		cfg.DocketVersion = DocketVersion
	}
	if cfg.Approver == nil {
		cfg.Approver = parkAll{}
	}
	records := stubRecords(o.Home)
	removeLeftStubs(o, records, filepath.Join(o.Home, "placeholders"))
	var hooksBase *engine.ProcessRunner
	cfg.Runner = o.Runner
	if cfg.Runner == nil {
		pr, err := s.processRunner(o, records, tmp)
		if err != nil {
			return cfg, err
		}
		cfg.Runner, hooksBase = pr, pr
	}
	if len(o.MCPServers) > 0 {
		mo := o.MCPOptions
		if mo.Dir == "" {
			mo.Dir = cwd
		}
		if mo.StubRecords == "" {
			mo.StubRecords = records
		}
		mgr, err := mcp.NewManager(o.MCPServers, mo)
		if err != nil {
			return cfg, &OptionError{Option: "MCPServers", Err: fmt.Errorf("mcp_servers: %w", err)}
		}
		s.mcp = mgr
		s.onClose(mgr.Close)
		if err := mgr.Start(ctx); err != nil {
			o.warn("some MCP servers did not start: %v", err)
		}
		for _, t := range mgr.Tools() {
			tools = append(tools, engine.MCPTool{T: t})
		}
		if hooksBase != nil {
			hooksBase.MCP = engine.MCPManager{M: mgr}
		}
	}
	if o.RiskAssessment {
		cfg.Risk = riskAssessor{m: o.Model}
	}
	if o.Subagents {
		tools = append(tools, engine.SpawnAgentTool{})
		host := &agentHost{home: o.JournalHome, model: o.Model}
		if sm, ok := o.Model.(*script.Model); ok {
			host.script = sm
		}
		cfg.Agents = host
	}
	cfg.Tools = tools
	if len(o.PreHooks)+len(o.PostHooks) > 0 {
		h := &hooks.Runner{Pre: o.PreHooks, Post: o.PostHooks, Cwd: cwd, Env: o.Env, KeepSecretEnv: o.KeepSecretEnv, StubRecords: records}
		if o.HookEnv != nil {
			h.Env, h.KeepSecretEnv = o.HookEnv, o.HookKeepSecretEnv
		}
		if hooksBase != nil {
			h.HelperPath, h.Caps, h.Launcher, h.GitWalks = hooksBase.HelperPath, hooksBase.Caps, hooksBase.Launcher, hooksBase.GitWalks
			if len(hooksBase.TempRoots) > 0 {
				h.Stubs, h.StubsIn = hooksBase.TempStubs, hooksBase.TempRoots
			}
		}
		cfg.Hooks = h
	}
	return cfg, nil
}

// processRunner is the default runner: sandboxed processes on the
// session's sandbox servers, with one walk for git directories per session
// and a table of long-lived processes (exec_command).
// The stubs of the shared temporary roots (/tmp/.git and the like) are
// kept for the session rather than made and removed on every call: they
// are removed when the session ends (after the servers that bind them),
// and a killed docket's by the next start, through their records.
func (s *Session) processRunner(o *Options, records string, tmp []string) (*engine.ProcessRunner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this program's binary: %w", err)
	}
	helper, err := sandbox.DefaultHelperPath()
	if err != nil {
		return nil, err
	}
	caps := sandbox.Probe()
	// One walk for git directories per session, kept while nothing it
	// depends on changed (gitwalk.Cache).
	walks := &gitwalk.Cache{}
	// One sandbox server per plan per session: the namespaces and the
	// mount layout are built once, each command gets its own PID
	// namespace, Landlock domain and seccomp filter (sandbox.Servers).
	servers := &sandbox.Servers{Binary: exe}
	kept := &stubs.Keeper{}
	s.onClose(func() error { return errors.Join(servers.Close(), walks.Close(), kept.Close()) })
	// The session's long-lived processes (exec_command): they end with it.
	procs := &uexec.Table{}
	s.onClose(procs.Close)
	return &engine.ProcessRunner{HelperPath: helper, DocketPath: exe, Caps: &caps, StubRecords: records,
		GitWalks: walks, TempStubs: kept, TempRoots: tmp, Launcher: servers, Processes: procs, Env: o.Env, KeepSecretEnv: o.KeepSecretEnv, AgentEnv: o.AgentEnv}, nil
}

// sharedTempRoots are the temporary roots a workspace-write plan of the
// session may add, shared with every other program: /tmp and $TMPDIR as
// recorded (absolute only), resolved as the plan resolves them. A
// temporary root that is also the workspace or a configured writable
// root is left out: its stubs are that root's, made and removed per call.
// Whether the plan of a call has the root writable at all is the plan's
// business: a stub is only made in a writable root.
func sharedTempRoots(p events.SessionConfig, cwd string) []string {
	cands := []string{"/tmp"}
	if filepath.IsAbs(p.TmpdirEnv) {
		cands = append(cands, p.TmpdirEnv)
	}
	others := []string{ws.RealPath(cwd)}
	for _, r := range p.WritableRoots {
		if r == "" {
			continue
		}
		if !filepath.IsAbs(r) {
			r = filepath.Join(cwd, r)
		}
		others = append(others, ws.RealPath(r))
	}
	var out []string
	for _, c := range cands {
		if r := ws.RealPath(c); !slices.Contains(others, r) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// removeLeftStubs removes the stubs a killed process left (in any
// workspace, writable root or beside the binary). A failure only costs a
// leftover empty directory, so it is a warning.
func removeLeftStubs(o *Options, records ...string) {
	for _, r := range records {
		removed, err := stubs.RemoveLeft(r)
		for _, p := range removed {
			o.warn("removed %s, an empty read-only stub a killed docket left", p)
		}
		if err != nil {
			o.warn("warning: %v", err)
		}
	}
}

// parkAll is the approver of a session opened without one: every request
// parks the session.
type parkAll struct{}

func (parkAll) Decide(context.Context, engine.ApprovalRequest) (engine.Answer, error) {
	return engine.Answer{}, engine.ErrNoDecision
}
