package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"

	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
)

// Command builds, without starting it, the helper process that runs
// req.Argv under req.Plan, for a caller that owns the process's lifetime
// and stdio (an MCP server talking over pipes). It uses the same helper,
// spec and layers as Run: namespaces by clone flags, capability drop,
// Landlock, seccomp, the filtered environment, and its own session and
// process group. Of the Request it reads Argv, Cwd, Env, KeepSecretEnv,
// Plan, HelperPath, Caps, Stubs and Bridge (served until Release, for a
// plan with Egress); the run-to-completion fields
// (Timeout, KillGrace, OutputCap, OnOutput) are Run's and are ignored.
//
// Unlike Run it does not fall back to weaker namespace setups when the
// kernel refuses one at start: it picks the strongest the probed
// capabilities promise, and a refusal makes Cmd.Start fail. A plan of mode
// "none", or one this machine cannot enforce, is an error (an
// *UnavailableError for a missing layer): Command never returns an
// unsandboxed process. A command that cannot be found is an error too.
func Command(req Request) (*Process, error) {
	p, err := prepare(req)
	if err != nil {
		return nil, err
	}
	if !p.plan.Sandboxed() {
		return nil, fmt.Errorf("sandbox: plan mode %q runs nothing sandboxed; Command needs %q or %q", p.plan.Mode, ModeReadOnly, ModeWorkspaceWrite)
	}
	if p.plan.Egress && req.Bridge == nil {
		return nil, &UnavailableError{Missing: []string{layers.Egress}, Err: errNoBridge}
	}
	caps, helper, spec, err := helperSetup(req, p)
	if err != nil {
		return nil, err
	}
	attempts := egressAttempts(caps, p.plan)
	if len(attempts) == 0 {
		if p.plan.Egress {
			return nil, &UnavailableError{Missing: []string{layers.UserNS}, Err: errors.New("the egress bridge needs user and network namespaces of the command's own")}
		}
		return nil, &UnavailableError{Missing: []string{layers.MountNS}, Hint: hintMountNS}
	}
	spec.NS = attempts[0]
	if !spec.NS.Mount {
		if len(spec.Binaries) > 0 {
			return nil, &UnavailableError{Missing: []string{layers.MountNS}, Hint: binariesHint(spec.Binaries)}
		}
		if (len(spec.Protected) > 0 || len(spec.Unseen) > 0) && p.plan.RequireProtectedPaths {
			return nil, &UnavailableError{Missing: []string{layers.MountNS}, Hint: hintMountNS}
		}
		spec.Protected, spec.Scanned, spec.Unseen = nil, nil, nil
	}
	spec, release, err := holdStubs(req, spec)
	if err != nil {
		return nil, err
	}
	env := p.env
	if spec.Bridge {
		env = withBridgeEnv(env)
	}
	helperEnv, loader := proto.SplitLoaderEnv(env)
	spec.LoaderEnv = loader
	bin, err := openHelperBinary(req.Caps, helper)
	if err != nil {
		release()
		return nil, err
	}
	setupR, setupW, err := os.Pipe()
	if err != nil {
		_ = bin.Close() // error path: nothing was written to it; the error returned is the one to report
		release()
		return nil, fmt.Errorf("sandbox: setup pipe: %w", err)
	}
	// The exit pipe's read end is kept but never read: the caller learns
	// how the command ended from Cmd.Wait (the init exits with its status,
	// and its one report line fits in the pipe). Holding it open is the
	// init's lifeline: when docket dies the read end closes and the init
	// kills the server (watchLifeline); Release closes it.
	exitR, exitW, err := os.Pipe()
	if err != nil {
		// Error path: nothing was written to these; the error returned is the one to report.
		_ = bin.Close()
		_ = setupR.Close()
		_ = setupW.Close()
		release()
		return nil, fmt.Errorf("sandbox: exit pipe: %w", err)
	}
	extra := []*os.File{setupW, exitW, bin}
	if spec.Bridge {
		// The process outlives any call's context: the bridge serves until
		// Release, which the owner calls once the process is gone.
		stop, err := startBridge(context.Background(), req, &spec, &extra)
		if err != nil {
			closeAll(bin, setupR, setupW, exitR, exitW)
			release()
			return nil, err
		}
		prev := release
		release = func() { stop(); prev() }
	}
	args, err := proto.Args(helper, spec, req.Argv)
	if err != nil {
		closeAll(extra...)
		closeAll(setupR, exitR)
		release()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	sys := cloneAttrs(spec.NS)
	// A new session: its own process group for the caller's kill, and no
	// controlling terminal to read from or inject into.
	sys.Setsid = true
	cmd := &exec.Cmd{
		Path: proto.BinaryExecPath, Args: args, Env: helperEnv, Dir: spec.Cwd,
		ExtraFiles: extra, SysProcAttr: sys,
	}
	return &Process{Cmd: cmd, setupR: setupR, exitR: exitR, parentEnds: extra, release: release, ready: make(chan struct{})}, nil
}

// closeAll closes descriptors on an error path: nothing was written
// through them, and the error returned is the one to report.
func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// Process is a sandboxed command built by Command and not yet started.
type Process struct {
	// Cmd starts the helper, which confines itself and then runs the
	// command with the same stdin, stdout and stderr. The caller sets Stdin,
	// Stdout and Stderr (or uses the *Pipe methods), WaitDelay and Cancel,
	// starts and waits for it; it must not change Path, Args, Env, Dir,
	// ExtraFiles or SysProcAttr. Signals sent to Cmd.Process reach the
	// command: the helper forwards them, or is the command itself.
	Cmd *exec.Cmd

	setupR *os.File
	// exitR is the exit pipe's read end, held as the init's lifeline.
	exitR *os.File
	// parentEnds are the helper's descriptors, closed here once it started.
	parentEnds []*os.File
	release    func()

	readOnce sync.Once
	ready    chan struct{} // closed once layers or err is known
	layers   []string
	err      error

	releaseOnce sync.Once
}

// Layers waits until the started helper has confined itself and returns
// the layers it enforced, as ExecOutcome.Layers names them. Call it after
// Cmd.Start. A non-nil error means the command is not running sandboxed (the
// helper refused the plan, an *UnavailableError when a layer is missing, or
// it died first) or ctx ended first; the caller should then stop the process.
func (p *Process) Layers(ctx context.Context) ([]string, error) {
	p.readOnce.Do(func() {
		if p.Cmd.Process == nil {
			p.err = errors.New("sandbox: Layers called before the helper was started")
			close(p.ready)
			return
		}
		// The helper has its copies now; without ours, a helper that dies
		// before reporting gives EOF instead of a hang.
		p.closeParentEnds()
		go p.readSetup()
	})
	select {
	case <-p.ready:
		return p.layers, p.err
	case <-ctx.Done():
		return nil, fmt.Errorf("sandbox: waiting for the helper to report its layers: %w", context.Cause(ctx))
	}
}

// readSetup reads the setup pipe to EOF (the helper closes it before the
// command starts) and publishes what it said.
func (p *Process) readSetup() {
	defer func() { _ = p.setupR.Close() }() // a read end: nothing to lose (read to EOF)
	rep := readSetup(p.setupR)
	switch {
	case rep.bad != nil:
		p.err = fmt.Errorf("sandbox: helper: %w", rep.bad)
	case rep.failed != nil:
		if hint := hintFor(rep.failed.Layer); hint != "" {
			p.err = &UnavailableError{Missing: []string{rep.failed.Layer}, Hint: hint, Err: errors.New(rep.failed.Error)}
		} else {
			p.err = fmt.Errorf("sandbox: helper setup failed (%s): %s", rep.failed.Layer, rep.failed.Error)
		}
	case rep.layers == nil:
		p.err = errors.New("sandbox: helper: closed its setup pipe (or exited) before reporting its layers")
	default:
		p.layers = rep.layers
	}
	close(p.ready)
}

func (p *Process) closeParentEnds() {
	for _, f := range p.parentEnds {
		_ = f.Close() // the child holds its own copy; Linux frees ours even when close fails
	}
}

// Release closes the protocol descriptors and removes the stub
// directories made for missing protected paths. Call it once the process
// has exited (after Cmd.Wait), or when it was never started; it is
// idempotent.
func (p *Process) Release() {
	p.releaseOnce.Do(func() {
		p.closeParentEnds()
		_ = p.setupR.Close() // a read end: nothing to lose; after readSetup it is only ErrClosed
		_ = p.exitR.Close()  // a read end, never read: nothing to lose
		p.release()
	})
}
