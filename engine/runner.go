package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/docket-engine/docket/engine/patch"
	"github.com/docket-engine/docket/engine/uexec"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/sandbox/stubs"
)

// MCPCaller runs MCP tool calls for the runner.
type MCPCaller interface {
	CallTool(ctx context.Context, server, tool string, args json.RawMessage) (events.ExecOutcome, error)
}

// ProcessRunner is the real Runner: shell commands and patch writes run as
// processes under the sandbox helper; MCP calls go to their servers.
type ProcessRunner struct {
	// HelperPath is the binary re-executed as the sandbox helper (docket
	// itself, or the lean docket-sandbox-helper); empty means os.Executable().
	HelperPath string
	// DocketPath is the docket binary that applies patches under the
	// sandbox; empty means HelperPath, then os.Executable().
	DocketPath string
	// Caps are the machine's sandbox capabilities, probed once; nil means
	// the runner probes them itself, once, on its first sandboxed call.
	Caps *sandbox.Capabilities
	// Env is the commands' environment; nil inherits the process's.
	Env []string
	// KeepSecretEnv keeps variables that look like secrets.
	KeepSecretEnv bool
	// MCP handles calls whose write-ahead record names a server.
	MCP MCPCaller
	// StubRecords is where stubs (empty read-only directories) are
	// recorded until removed (sandbox.Request.StubRecords); "" records none.
	StubRecords string
	// AgentEnv is each external agent's own environment (its [agents.NAME]
	// env, NAME=VALUE), added to the commands' environment for run_agent
	// calls of that agent even when a name looks secret: the operator set
	// it for that agent. Only the names are journaled.
	AgentEnv map[string][]string
	// GitWalks, when set, keeps the sandbox's walk for git directories
	// under the writable roots between calls (gitwalk.Cache); its owner
	// closes it at the end of the session.
	GitWalks *gitwalk.Cache
	// TempStubs, when set, keeps the stubs of the protected names directly
	// in the TempRoots (/tmp/.git and the like) from one call to the next
	// (sandbox.Request.StubsIn); every other stub is made and removed per
	// call. Its owner closes it at the end of the session, which removes
	// them. Without TempRoots it is not used.
	TempStubs *stubs.Keeper
	// TempRoots are the session's shared temporary roots (/tmp and
	// $TMPDIR, resolved), never its workspace or another root it was
	// given.
	TempRoots []string
	// Launcher starts the sandboxed calls: the session's sandbox servers
	// (a *sandbox.Servers, whose owner closes it at the end of the
	// session), or nil for a helper per call (sandbox.PerCall).
	Launcher sandbox.Launcher
	// Processes holds the session's long-lived processes (exec_command,
	// write_stdin); its owner closes it at the end of the session, which
	// kills them. Nil: exec_command reports it cannot start one.
	Processes *uexec.Table

	// probeOnce fills probed when Caps is nil: a probe builds two seccomp
	// filters (about 0.7 ms), and both Check and sandbox.Run would
	// otherwise probe again on every sandboxed call. A capability lost
	// mid-session still fails closed: the helper refuses a plan it cannot
	// enforce (Run's contract).
	probeOnce sync.Once
	probed    *sandbox.Capabilities
	// records remembers the stub records checks this runner's calls
	// passed: a session checks each plan once (sandbox.StubRecordsCheck).
	records sandbox.StubRecordsCheck
}

// caps returns Caps, or the capabilities this runner probed once.
func (r *ProcessRunner) caps() *sandbox.Capabilities {
	if r.Caps != nil {
		return r.Caps
	}
	r.probeOnce.Do(func() {
		c := sandbox.Probe()
		r.probed = &c
	})
	return r.probed
}

func (r *ProcessRunner) helper() (string, error) {
	if r.HelperPath != "" {
		return r.HelperPath, nil
	}
	return os.Executable()
}

func (r *ProcessRunner) docket() (string, error) {
	if r.DocketPath != "" {
		return r.DocketPath, nil
	}
	return r.helper()
}

// Check fails when the plan's sandbox cannot be enforced here.
func (r *ProcessRunner) Check(ctx context.Context, req RunRequest) error {
	if req.Server != "" || !req.Sandbox.Sandboxed() {
		return nil
	}
	return r.caps().Check(req.Sandbox)
}

// Run executes the call described by its write-ahead record.
func (r *ProcessRunner) Run(ctx context.Context, req RunRequest) (events.ExecOutcome, error) {
	return r.run(ctx, req, nil)
}

// Prepare prepares a sandboxed shell or agent call while the engine makes
// its write-ahead record durable (Preparer): sandbox.Run with a closed
// gate, in a goroutine of the call's own, sets the call up as far as the
// launcher can without starting the command. Other calls are not
// prepared early.
func (r *ProcessRunner) Prepare(ctx context.Context, req RunRequest) (PreparedRun, bool) {
	if req.Server != "" || !req.Sandbox.Sandboxed() || (req.Tool != "shell" && req.Tool != AgentToolName) {
		return nil, false
	}
	p := &preparedRun{gate: sandbox.NewGate(), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.out, p.err = r.run(ctx, req, p.gate)
	}()
	return p, true
}

// preparedRun is a call prepared by ProcessRunner.Prepare.
type preparedRun struct {
	gate *sandbox.Gate
	done chan struct{}
	out  events.ExecOutcome
	err  error
}

func (p *preparedRun) Start() (events.ExecOutcome, error) {
	p.gate.Open()
	<-p.done
	return p.out, p.err
}

func (p *preparedRun) Abandon() {
	p.gate.Abandon()
	<-p.done
}

// run is Run, the command held back by gate until it opens (nil: not held).
func (r *ProcessRunner) run(ctx context.Context, req RunRequest, gate *sandbox.Gate) (events.ExecOutcome, error) {
	if req.Server != "" {
		if r.MCP == nil {
			return events.ExecOutcome{}, errors.New("no MCP servers are configured")
		}
		return r.MCP.CallTool(ctx, req.Server, req.MCPTool, json.RawMessage(req.Input))
	}
	helper, err := r.helper()
	if err != nil {
		return events.ExecOutcome{}, fmt.Errorf("find the docket binary: %w", err)
	}
	sr := sandbox.Request{Cwd: req.Cwd, Env: r.Env, KeepSecretEnv: r.KeepSecretEnv, Plan: req.Sandbox,
		Timeout: time.Duration(req.TimeoutMs) * time.Millisecond, OutputCap: req.OutputCap,
		OnOutput: req.OnOutput, HelperPath: helper, Caps: r.Caps, StubRecords: r.StubRecords, RecordsCheck: &r.records,
		GitWalks: r.GitWalks, Launcher: r.Launcher, Bridge: req.Bridge, Gate: gate}
	if req.Sandbox.Sandboxed() {
		sr.Caps = r.caps()
		if r.TempStubs != nil && len(r.TempRoots) > 0 {
			sr.Stubs, sr.StubsIn = r.TempStubs, r.TempRoots
		}
	}
	switch req.Tool {
	case ExecCommandName:
		sr.Argv = req.Argv
		return r.startProcess(ctx, req, sr)
	case WriteStdinName:
		return r.writeProcess(ctx, req)
	case "shell":
		sr.Argv = req.Argv
	case AgentToolName:
		sr.Argv = req.Argv
		sr.Env, sr.KeepSecretEnv = agentEnv(r.Env, r.KeepSecretEnv, r.AgentEnv[req.Input])
	case "apply_patch":
		f, err := os.CreateTemp("", "docket-patch-*.txt")
		if err != nil {
			return events.ExecOutcome{}, fmt.Errorf("stage patch: %w", err)
		}
		// A leftover staged patch in $TMPDIR is harmless.
		defer func() { _ = os.Remove(f.Name()) }()
		_, werr := f.WriteString(req.Input)
		if cerr := f.Close(); werr != nil || cerr != nil {
			return events.ExecOutcome{}, fmt.Errorf("stage patch: %w", errors.Join(werr, cerr))
		}
		exe, err := r.docket()
		if err != nil {
			return events.ExecOutcome{}, err
		}
		sr.Argv = []string{exe, patch.HelperArg, req.Cwd, f.Name()}
		sr.OnOutput = nil
	default:
		return events.ExecOutcome{}, fmt.Errorf("no runner for tool %q", req.Tool)
	}
	out, err := sandbox.Run(ctx, sr)
	var ue *sandbox.UnavailableError
	if errors.As(err, &ue) {
		out.SandboxError = ue.Error()
		return out, nil
	}
	return out, err
}
