package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/sandbox/stubs"
)

// outputCap bounds what is kept of a hook's stdout and stderr.
const outputCap = 64 << 10

// Runner runs the configured hooks of a session. Its zero value runs none.
type Runner struct {
	Pre, Post []Spec
	// Cwd is where hooks run (the session's directory).
	Cwd string
	// HelperPath is the sandbox helper binary; empty means the default.
	HelperPath string
	// Caps are the machine's sandbox capabilities; nil probes.
	Caps *sandbox.Capabilities
	// Launcher and GitWalks are the session's (see sandbox.Request): a
	// sandboxed hook runs as the session's calls do, on its sandbox
	// servers. Nil means a helper per hook and a walk per run.
	Launcher sandbox.Launcher
	GitWalks *gitwalk.Cache
	// Stubs and StubsIn are the session's kept stubs of its temporary
	// roots (see sandbox.Request); nil makes and removes them per hook.
	Stubs   *stubs.Keeper
	StubsIn []string
	// StubRecords is where the stubs a sandboxed hook needs are recorded
	// (see sandbox.Request), so a killed docket's are removed at the next
	// start; empty records nothing.
	StubRecords string
	// Env is the hooks' environment; nil inherits docket's (secrets removed
	// by the sandbox package unless KeepSecretEnv).
	Env           []string
	KeepSecretEnv bool
}

// Plan is the sandbox a sandboxed hook runs under: it may read the
// machine but write nothing and reach no network. A hook judges; it has no
// business changing what it judges.
func Plan() events.SandboxPlan { return events.SandboxPlan{Mode: events.SandboxReadOnly} }

// Configured reports whether any hook is configured.
func (r *Runner) Configured() bool { return r != nil && len(r.Pre)+len(r.Post) > 0 }

// Run runs, in order, the hooks of c.Stage that match the call and returns
// one verdict per hook run. A pre_tool stage stops at the first deny: later
// hooks cannot lift it. It never fails: a hook that fails is a verdict
// carrying its on_error.
func (r *Runner) Run(ctx context.Context, c Call) []events.HookVerdict {
	specs := r.Pre
	if c.Stage == events.HookPostTool {
		specs = r.Post
	}
	var out []events.HookVerdict
	for i, s := range specs {
		if !s.Matches(c.Tool, c.Argv) {
			continue
		}
		v := r.runOne(ctx, c, s)
		v.Hook = i + 1
		out = append(out, v)
		if c.Stage == events.HookPreTool && v.Decision == events.HookDeny {
			break
		}
	}
	return out
}

func (r *Runner) runOne(ctx context.Context, c Call, s Spec) events.HookVerdict {
	v := events.HookVerdict{CallID: c.CallID, Stage: c.Stage, Name: s.label(), Command: s.Command, Sandbox: events.SandboxNone, ExitCode: -1}
	plan := events.SandboxPlan{Mode: events.SandboxNone}
	if !s.Unsandboxed {
		plan = Plan()
		v.Sandbox = plan.Mode
	}
	fail := func(msg string) events.HookVerdict {
		v.Decision, v.Error = s.onError(), msg
		v.Reason = string(c.Stage) + " hook " + v.Name + " failed: " + msg
		return v
	}
	var in []byte
	var err error
	if s.Protocol == ProtocolCodex {
		in, err = codexStdin(c)
	} else {
		in, err = json.Marshal(c)
	}
	if err != nil {
		return fail("could not encode the call: " + err.Error())
	}
	if len(s.Command) == 0 {
		return fail("no command is configured")
	}
	if msg := changedPin(s.Pins); msg != "" {
		return fail(msg)
	}
	start := time.Now()
	o, err := sandbox.Run(ctx, sandbox.Request{Argv: s.Command, Cwd: r.Cwd, Env: r.Env, KeepSecretEnv: r.KeepSecretEnv,
		Plan: plan, Timeout: s.timeout(), OutputCap: outputCap, HelperPath: r.HelperPath, Caps: r.Caps, Stdin: in,
		Launcher: r.Launcher, GitWalks: r.GitWalks, StubRecords: r.StubRecords, Stubs: r.Stubs, StubsIn: r.StubsIn})
	v.DurationNs = time.Since(start).Nanoseconds()
	var ue *sandbox.UnavailableError
	switch {
	case errors.As(err, &ue):
		o.SandboxError = ue.Error()
	case err != nil && ctx.Err() != nil:
		return fail("stopped with the turn: " + ctx.Err().Error())
	case err != nil:
		o.Error = err.Error()
	}
	v.ExitCode = o.ExitCode
	var d events.HookDecision
	var reason string
	var jerr error
	if s.Protocol == ProtocolCodex {
		d, reason, jerr = judgeCodex(o, s.timeout())
	} else {
		d, reason, jerr = judge(c.Stage, o, s.timeout())
	}
	if jerr != nil {
		return fail(jerr.Error())
	}
	v.Decision, v.Reason = d, reason
	return v
}
