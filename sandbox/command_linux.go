package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
)

// Command builds, without starting it, the helper process that runs
// req.Argv under req.Plan, for a caller that owns the process's lifetime
// and stdio (an MCP server talking over pipes). It uses the same helper,
// spec and layers as Run: namespaces by clone flags, capability drop,
// Landlock, seccomp, the filtered environment, and its own session and
// process group. Of the Request it reads Argv, Cwd, Env, KeepSecretEnv,
// Plan, HelperPath, Caps and Placeholders; the run-to-completion fields
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
	caps, helper, spec, err := helperSetup(req, p)
	if err != nil {
		return nil, err
	}
	spec.NS = namespaceAttempts(caps, p.plan.Network)[0]
	if !spec.NS.Mount && len(spec.Protected) > 0 {
		if p.plan.RequireProtectedPaths {
			return nil, &UnavailableError{Missing: []string{LayerMountNS}, Hint: hintMountNS}
		}
		spec.Protected = nil
	}
	spec, release, err := holdPlaceholders(req, spec)
	if err != nil {
		return nil, err
	}
	helperEnv, loader := splitLoaderEnv(p.env)
	spec.LoaderEnv = loader
	args, err := helperArgs(helper, spec, req.Argv)
	if err != nil {
		release()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		release()
		return nil, fmt.Errorf("sandbox: report pipe: %w", err)
	}
	sys := cloneAttrs(spec.NS)
	// A new session: its own process group for the caller's kill, and no
	// controlling terminal to read from or inject into.
	sys.Setsid = true
	cmd := &exec.Cmd{
		Path: helper, Args: args, Env: helperEnv, Dir: spec.Cwd,
		ExtraFiles: []*os.File{repW}, SysProcAttr: sys,
	}
	return &Process{Cmd: cmd, repR: repR, repW: repW, release: release, ready: make(chan struct{})}, nil
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

	repR, repW *os.File
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
		// The helper has its copy now; without ours, a helper that dies
		// before reporting gives EOF instead of a hang.
		p.repW.Close()
		go p.readReport()
	})
	select {
	case <-p.ready:
		return p.layers, p.err
	case <-ctx.Done():
		return nil, fmt.Errorf("sandbox: waiting for the helper to report its layers: %w", context.Cause(ctx))
	}
}

// readReport reads report lines until the helper says whether it confined
// itself, publishes that, and then drains the pipe until the helper exits
// (with a PID namespace it stays as init and reports the command's exit).
func (p *Process) readReport() {
	defer p.repR.Close()
	sc := bufio.NewScanner(p.repR)
	sc.Buffer(make([]byte, 4096), 1<<20)
	decided := false
	decide := func(layers []string, err error) {
		if !decided {
			decided = true
			p.layers, p.err = layers, err
			close(p.ready)
		}
	}
	for sc.Scan() {
		if decided {
			continue
		}
		var l reportLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			decide(nil, fmt.Errorf("sandbox: helper report %q: %w", sc.Text(), err))
			continue
		}
		switch l.Kind {
		case reportLayers:
			decide(l.Layers, nil)
		case reportSetupError:
			if hint := hintFor(l.Layer); hint != "" {
				decide(nil, &UnavailableError{Missing: []string{l.Layer}, Hint: hint, Err: errors.New(l.Error)})
			} else {
				decide(nil, fmt.Errorf("sandbox: helper setup failed: %s", l.Error))
			}
		case reportExecError, reportExit:
			// Only ever after the layers line; seen first, the protocol is broken.
			decide(nil, fmt.Errorf("sandbox: helper reported %q before its layers", l.Kind))
		default:
			decide(nil, fmt.Errorf("sandbox: helper report: unknown kind %q", l.Kind))
		}
	}
	err := sc.Err()
	if err != nil {
		err = fmt.Errorf("report pipe: %w", err)
	} else {
		err = errors.New("closed its report pipe (or exited) before reporting its layers")
	}
	decide(nil, fmt.Errorf("sandbox: helper: %w", err))
}

// Release closes the report pipe and removes the placeholder directories
// made for missing protected paths. Call it once the process has exited
// (after Cmd.Wait), or when it was never started; it is idempotent.
func (p *Process) Release() {
	p.releaseOnce.Do(func() {
		p.repW.Close()
		p.repR.Close()
		p.release()
	})
}
