package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
	"github.com/docket-engine/docket/sandbox/stubs"
	"golang.org/x/sys/unix"
)

// Run runs req.Argv under req.Plan and reports what happened. A command that
// fails (non-zero exit, killed, timed out, not found) is an outcome, not an
// error. Denial is left empty: whether a failure was the sandbox's doing is
// the caller's call (the engine asks policy.ClassifyDenial, once). The error is non-nil only when the command could not be run as
// asked: an *UnavailableError when the plan needs a layer this machine
// cannot give (the command did not run), or a wrapped context error when ctx
// ended the run (the outcome then says how far it got).
func Run(ctx context.Context, req Request) (events.ExecOutcome, error) {
	var out events.ExecOutcome
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("sandbox: %w", err)
	}
	req.trace = proto.OpenTracer()
	defer req.trace.Close()
	req.trace.Mark("run.start")
	p, err := prepare(req)
	req.trace.Mark("prepare")
	if err != nil {
		var ce *commandError
		if errors.As(err, &ce) {
			// Its message is streamed as the command's output would be:
			// not before the gate opens.
			if err := req.Gate.wait(ctx); err != nil {
				return out, err
			}
			return commandFailure(req, ce), nil
		}
		return out, err
	}
	if !p.plan.Sandboxed() {
		// Nothing of an unsandboxed run is prepared early.
		if err := req.Gate.wait(ctx); err != nil {
			return out, err
		}
		out, err := runProcess(ctx, req, launch{path: p.path, args: req.Argv, env: p.env, dir: p.cwd, tree: true})
		var se *startError
		if errors.As(err, &se) {
			return commandFailure(req, &commandError{name: req.Argv[0], code: proto.ExitCannotRun, err: se.err}), nil
		}
		return out, err
	}
	return runSandboxed(ctx, req, p)
}

// prepare normalises the plan, resolves the working directory, filters the
// environment and looks the command up; a command that cannot be found is
// a *commandError.
func prepare(req Request) (prepared, error) {
	var p prepared
	if len(req.Argv) == 0 {
		return p, errors.New("sandbox: empty argv")
	}
	plan, err := normalizePlan(req.Plan)
	if err != nil {
		return p, err
	}
	if plan.Sandboxed() {
		if err := req.RecordsCheck.check(req.StubRecords, plan); err != nil {
			return p, err
		}
	}
	cwd := req.Cwd
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return p, fmt.Errorf("sandbox: working directory: %w", err)
		}
	}
	if cwd, err = filepath.Abs(cwd); err != nil {
		return p, fmt.Errorf("sandbox: working directory %q: %w", req.Cwd, err)
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return p, fmt.Errorf("sandbox: working directory %q is not a directory", cwd)
	}
	base := req.Env
	if base == nil {
		base = os.Environ()
	}
	env := commandEnv(base, plan, req.KeepSecretEnv)
	path, err := lookPath(req.Argv[0], env, cwd)
	if err != nil {
		return p, err
	}
	return prepared{plan: plan, cwd: cwd, env: env, path: path}, nil
}

// commandFailure is the outcome of a command that could not be executed;
// its message is streamed like any other output.
func commandFailure(req Request, ce *commandError) events.ExecOutcome {
	msg := "docket: " + ce.Error() + "\n"
	if req.OnOutput != nil {
		req.OnOutput("stderr", []byte(msg))
	}
	return events.ExecOutcome{ExitCode: ce.code, Stderr: msg, Output: msg}
}

// normalizePlan checks the mode and makes every path absolute and clean.
func normalizePlan(p events.SandboxPlan) (events.SandboxPlan, error) {
	switch p.Mode {
	case ModeReadOnly, ModeWorkspaceWrite, ModeNone:
	case "":
		return p, errors.New("sandbox: plan has no mode")
	default:
		return p, fmt.Errorf("sandbox: unknown plan mode %q (want %q, %q or %q)", p.Mode, ModeReadOnly, ModeWorkspaceWrite, ModeNone)
	}
	clean := func(what string, in []string) ([]string, error) {
		var out []string
		for _, s := range in {
			if !filepath.IsAbs(s) {
				return nil, fmt.Errorf("sandbox: %s %q is not absolute", what, s)
			}
			c := filepath.Clean(s)
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
		return out, nil
	}
	var err error
	if p.WritableRoots, err = clean("writable root", p.WritableRoots); err != nil {
		return p, err
	}
	if p.ReadOnlySubpaths, err = clean("read-only subpath", p.ReadOnlySubpaths); err != nil {
		return p, err
	}
	return p, nil
}

// runSandboxed builds the call's spec and hands it to req's launcher.
func runSandboxed(ctx context.Context, req Request, p prepared) (events.ExecOutcome, error) {
	var out events.ExecOutcome
	caps, helper, spec, err := helperSetup(req, p)
	if err != nil {
		return out, err
	}
	if p.plan.Egress && req.Bridge == nil {
		return out, &UnavailableError{Missing: []string{layers.Egress}, Err: errNoBridge}
	}
	l := launcherOf(req)
	if p.plan.Egress || len(p.plan.Hidden) > 0 {
		// The egress bridge and the hidden paths are built by a helper of
		// the call's own; a session's server does not carry them yet.
		l = PerCall{}
	}
	return l.launch(ctx, call{req: req, p: p, caps: caps, helper: helper, spec: spec})
}

// launch starts a helper for the call with the strongest namespace setup
// the machine allows, falling back to weaker ones only where the plan
// permits and only on a refusal that came before the command could exist:
// clone refusing the namespaces, or the helper's setup pipe (closed before
// the command starts) saying the mount namespace could not be built. Each
// fallback is recorded in the outcome.
func (PerCall) launch(ctx context.Context, c call) (events.ExecOutcome, error) {
	var out events.ExecOutcome
	// A helper of the call's own prepares nothing early: it holds its
	// stubs and starts once the gate is open.
	if err := c.req.Gate.wait(ctx); err != nil {
		return out, err
	}
	req, p, caps, helper, spec := c.req, c.p, c.caps, c.helper, c.spec
	plan := p.plan
	var lastErr error
	var fallbacks []string
	for _, ns := range egressAttempts(caps, plan) {
		s := spec
		s.NS = ns
		if !ns.Mount {
			if len(spec.Binaries) > 0 {
				return out, &UnavailableError{Missing: []string{layers.MountNS}, Hint: binariesHint(spec.Binaries), Err: lastErr}
			}
			// Nothing is bound without a mount namespace, the walk's
			// finds included.
			s.Protected, s.Scanned, s.Unseen = nil, nil, nil
			if (len(spec.Protected) > 0 || len(spec.Unseen) > 0) && plan.RequireProtectedPaths {
				return out, &UnavailableError{Missing: []string{layers.MountNS}, Hint: hintMountNS, Err: lastErr}
			}
		}
		out, err := launchLimited(ctx, req, helper, s, p.env, plan)
		var gone *stubVanishedError
		for try := 0; try < maxStubRetries && errors.As(err, &gone); try++ {
			// Nothing ran: hold again (a fresh stub) and relaunch, same spec.
			out, err = launchLimited(ctx, req, helper, s, p.env, plan)
		}
		var retry *retryableError
		if errors.As(err, &retry) {
			lastErr = retry.err
			fallbacks = append(fallbacks, fmt.Sprintf("%s: %v", ns.Describe(), retry.err))
			continue
		}
		out.Fallbacks = fallbacks
		return out, err
	}
	return out, &UnavailableError{Missing: []string{"sandbox helper"}, Err: lastErr}
}

// binariesHint explains a refusal to run with docket's binaries writable.
func binariesHint(bins []string) string {
	return fmt.Sprintf("docket's own binaries (%s) lie under a writable root and only a mount namespace can keep the command from replacing them: "+
		"install docket outside the writable roots, or allow namespaces", strings.Join(bins, ", "))
}

// helperSetup checks that the machine can enforce a sandboxed plan and
// returns its capabilities, the helper binary and the call's spec, without
// namespaces yet: what the host says is read here, once (hostFacts), and
// the spec built from it and the plan alone (specFor).
func helperSetup(req Request, p prepared) (Capabilities, string, Spec, error) {
	plan := p.plan
	caps := req.Caps
	if caps == nil {
		c := Probe()
		caps = &c
		req.trace.Mark("probe")
	}
	// Protected paths are checked against the namespaces actually had, later.
	noProtect := plan
	noProtect.RequireProtectedPaths = false
	if err := caps.Check(noProtect); err != nil {
		return *caps, "", Spec{}, err
	}
	helper := req.HelperPath
	if helper == "" {
		exe, err := DefaultHelperPath()
		if err != nil {
			return *caps, "", Spec{}, err
		}
		helper = exe
	}
	// The bridge needs TCP sockets; the empty namespace and Landlock keep
	// them to the bridge's port.
	filter := caps.seccompFilter(plan.Network || plan.Egress)
	if filter == nil {
		f, err := buildSeccompFilter(plan.Network || plan.Egress)
		if err != nil {
			return *caps, "", Spec{}, &UnavailableError{Missing: []string{layers.Seccomp}, Hint: hintSeccomp, Err: err}
		}
		filter = f
		req.trace.Mark("seccomp.compile")
	}
	facts := hostFacts{cwd: p.cwd, path: p.path, seccomp: filter}
	if plan.Mode == ModeWorkspaceWrite {
		for _, r := range plan.WritableRoots {
			if st, err := os.Stat(r); err == nil && st.IsDir() {
				facts.roots = append(facts.roots, r)
			}
		}
	}
	exe, _ := os.Executable()
	facts.binaries, facts.absentBinaries = docketBinaries(helper, exe, facts.roots)
	req.trace.Mark("plan")
	readHostFacts(&facts, plan, req.GitWalks, req.trace)
	spec := specFor(plan, facts)
	return *caps, helper, spec, nil
}

// namespaceAttempts lists namespace setups from strongest to weakest. Root
// needs no user namespace to create the others, and drops its
// capabilities in the helper instead (the user namespace costs about as
// much as the rest of the setup together); everyone else needs one.
func namespaceAttempts(c Capabilities, network bool) []proto.Namespaces {
	var list []proto.Namespaces
	if c.Root {
		list = append(list, proto.Namespaces{Mount: true, PID: true, Net: !network, IPC: true, UTS: true})
	}
	if c.UserNamespaces {
		list = append(list, proto.Namespaces{User: true, Mount: true, PID: true, Net: !network, IPC: true, UTS: true})
	}
	return append(list, proto.Namespaces{})
}

// retryableError is a namespace setup refused before the command could
// exist; a weaker one may work.
type retryableError struct{ err error }

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

// launchHelper runs the helper once with the given spec. The helper binary
// is exec'ed through a descriptor opened here (see openHelperBinary). Only
// a clone refusal, or a mount namespace failure reported on the setup pipe,
// is retryable: both come before the command exists. Anything after the
// helper reported its layers is this call's outcome or error.
func launchHelper(ctx context.Context, req Request, helper string, spec Spec, env []string) (events.ExecOutcome, error) {
	var out events.ExecOutcome
	if spec.Bridge {
		env = withBridgeEnv(env)
	}
	spec, release, err := holdStubs(req, spec)
	if err != nil {
		return out, err
	}
	req.trace.Mark("stubs.hold")
	defer func() {
		release()
		req.trace.Mark("stubs.release")
	}()
	helperEnv, loader := proto.SplitLoaderEnv(env)
	spec.LoaderEnv = loader
	bin, err := openHelperBinary(req.Caps, helper)
	if err != nil {
		return out, err
	}
	setupR, setupW, err := os.Pipe()
	if err != nil {
		_ = bin.Close() // error path: nothing was written to it; the error returned is the one to report
		return out, fmt.Errorf("sandbox: setup pipe: %w", err)
	}
	defer func() { _ = setupR.Close() }() // a read end: nothing to lose
	exitR, exitW, err := os.Pipe()
	if err != nil {
		// Error path: nothing was written to these; the error returned is the one to report.
		_ = bin.Close()
		_ = setupW.Close()
		return out, fmt.Errorf("sandbox: exit pipe: %w", err)
	}
	defer func() { _ = exitR.Close() }() // a read end: nothing to lose
	extra := []*os.File{setupW, exitW, bin}
	if req.trace != nil {
		// Passed at traceFD; runProcess closes its copy like the others.
		if f, err := proto.DupCloexec(req.trace.File()); err == nil {
			extra = append(extra, f)
			spec.Trace = true
		}
	}
	if spec.Bridge {
		stop, err := startBridge(ctx, req, &spec, &extra)
		if err != nil {
			closeAll(extra...)
			return out, err
		}
		defer stop()
	}
	// Encoded once, with everything the trace and the bridge set.
	args, err := proto.Args(helper, spec, req.Argv)
	if err != nil {
		closeAll(extra...)
		return out, fmt.Errorf("sandbox: %w", err)
	}
	setupDone := make(chan setupReport, 1)
	go func() { setupDone <- readSetup(setupR) }()
	exitDone := make(chan exitReport, 1)
	go func() { exitDone <- readExit(exitR) }()

	out, err = runProcess(ctx, req, launch{
		path: proto.BinaryExecPath, args: args, env: helperEnv, dir: spec.Cwd,
		sys: cloneAttrs(spec.NS), extra: extra,
		narrow: !spec.NS.User && os.Geteuid() == 0,
	})
	var se *startError
	if errors.As(err, &se) {
		// Read ends, closed to unblock the readers: nothing to lose.
		_ = setupR.Close()
		_ = exitR.Close()
		<-setupDone
		<-exitDone
		if spec.NS != (proto.Namespaces{}) && isNamespaceRefusal(se.err) {
			return out, &retryableError{err: fmt.Errorf("clone: %w", se.err)}
		}
		return out, fmt.Errorf("sandbox: starting helper %s: %w", helper, se.err)
	}
	setup := <-setupDone
	exit := <-exitDone
	req.trace.Mark("reports.read")
	out.Layers = setup.layers
	switch {
	case setup.bad != nil:
		out.SandboxError = setup.bad.Error()
		return out, fmt.Errorf("sandbox: helper: %w", setup.bad)
	case setup.failed != nil:
		out.SandboxError = setup.failed.Error
		if setup.failed.Layer == layers.MountNS && spec.NS != (proto.Namespaces{}) {
			return out, &retryableError{err: fmt.Errorf("%s: %s", layers.MountNS, setup.failed.Error)}
		}
		if hint := hintFor(setup.failed.Layer); hint != "" {
			return out, &UnavailableError{Missing: []string{setup.failed.Layer}, Hint: hint, Err: errors.New(setup.failed.Error)}
		}
		return out, asStubVanished(setup.failed.Layer, spec, fmt.Errorf("sandbox: helper setup failed (%s): %s", setup.failed.Layer, setup.failed.Error))
	case setup.layers == nil:
		if err != nil || out.TimedOut {
			return out, err
		}
		// The helper died before confining itself: never report such a run
		// as sandboxed.
		out.SandboxError = fmt.Sprintf("sandbox helper exited (code %d, signal %q) before reporting its layers", out.ExitCode, out.Signal)
		return out, fmt.Errorf("sandbox: %s", out.SandboxError)
	}
	// The command may have run: what follows is this call's outcome.
	if exit.bad != nil {
		out.SandboxError = exit.bad.Error()
		return out, fmt.Errorf("sandbox: helper: %w", exit.bad)
	}
	if l := exit.line; l != nil {
		switch l.Kind {
		case proto.ReportExit:
			// The init outlived the command and saw how it ended.
			out.ExitCode = l.Code
			out.Signal = ""
			if l.Signal != 0 {
				out.Signal = unix.SignalName(syscall.Signal(l.Signal))
			}
		case proto.ReportInitError:
			out.SandboxError = "sandbox init: " + l.Error
			return out, fmt.Errorf("sandbox: %s", out.SandboxError)
		}
	}
	return out, err
}

// holdStubs makes stubs for the spec's missing protected paths and returns
// the spec binding what could be held, plus the release to call once the
// sandbox has exited (a no-op when req.Stubs keeps them).
func holdStubs(req Request, spec Spec) (Spec, func(), error) {
	release := func() {}
	if len(spec.Protected) == 0 {
		return spec, release, nil
	}
	// What the git walk found existing is bound as it is, never held: a
	// stub made for one that vanished since would be a directory
	// created in somebody else's tree (another session's, or a test's
	// being removed), and the helper skips a vanished one anyway.
	var toHold []string
	for _, p := range spec.Protected {
		if !slices.Contains(spec.Scanned, p) {
			toHold = append(toHold, p)
		}
	}
	perCall, kept := splitKept(req, toHold)
	var keep []string
	if len(kept) > 0 {
		var err error
		if keep, err = req.Stubs.Hold(kept, spec.Writable, req.StubRecords); err != nil {
			return spec, func() {}, fmt.Errorf("sandbox: %w", err)
		}
	}
	if len(perCall) > 0 {
		held, rel, err := stubs.Hold(perCall, spec.Writable, req.StubRecords)
		if err != nil {
			return spec, func() {}, fmt.Errorf("sandbox: %w", err)
		}
		keep, release = append(keep, held...), rel
	}
	// A fresh slice: the caller retries with the original list.
	var protected []string
	for _, p := range append(keep, spec.Scanned...) {
		if events.WithinAny(p, spec.Writable) && !slices.Contains(protected, p) {
			protected = append(protected, p)
		}
	}
	var scanned []string
	for _, p := range spec.Scanned {
		if slices.Contains(protected, p) {
			scanned = append(scanned, p)
		}
	}
	spec.Protected, spec.Scanned = protected, scanned
	return spec, release, nil
}

// splitKept divides the paths to hold into those made and removed for
// this run and those req.Stubs keeps (see Request.StubsIn).
func splitKept(req Request, paths []string) (perCall, kept []string) {
	switch {
	case req.Stubs == nil:
		return paths, nil
	case len(req.StubsIn) == 0:
		return nil, paths
	}
	for _, p := range paths {
		if slices.Contains(req.StubsIn, filepath.Dir(p)) {
			kept = append(kept, p)
		} else {
			perCall = append(perCall, p)
		}
	}
	return perCall, kept
}

// cloneAttrs turns a namespace setup into clone flags and id maps.
func cloneAttrs(ns proto.Namespaces) *syscall.SysProcAttr {
	sys := &syscall.SysProcAttr{}
	if ns.User {
		sys.Cloneflags |= syscall.CLONE_NEWUSER
		uid, gid := os.Getuid(), os.Getgid()
		if uid == 0 {
			// Root keeps every id, but its capabilities now only count
			// inside the namespace: no modules, no reboot, no host netns.
			sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
			sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
			sys.GidMappingsEnableSetgroups = true
		} else {
			sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
			sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
			// The helper keeps its own uid, and execve drops the
			// capabilities a non-root uid has in the new namespace; ambient
			// CAP_SYS_ADMIN (to mount) and CAP_SETPCAP (to empty the
			// bounding set) survive the exec. It drops them all before
			// the command exists.
			sys.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
		}
	}
	flags := []struct {
		on   bool
		flag uintptr
	}{
		{ns.Mount, syscall.CLONE_NEWNS}, {ns.PID, syscall.CLONE_NEWPID}, {ns.Net, syscall.CLONE_NEWNET},
		{ns.IPC, syscall.CLONE_NEWIPC}, {ns.UTS, syscall.CLONE_NEWUTS},
	}
	for _, f := range flags {
		if f.on {
			sys.Cloneflags |= f.flag
		}
	}
	return sys
}

// isNamespaceRefusal recognises the errors clone gives when namespaces are
// not allowed (policy, limits, or a seccomp profile around docket).
func isNamespaceRefusal(err error) bool {
	for _, e := range []error{unix.EPERM, unix.EINVAL, unix.ENOSPC, unix.EUSERS, unix.EACCES, unix.ENOSYS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func hintFor(layer string) string {
	switch layer {
	case "landlock":
		return hintLandlock
	case layers.Seccomp:
		return hintSeccomp
	case layers.MountNS:
		return hintMountNS
	}
	return ""
}
