package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// reportFD is the helper's end of the report pipe (the parent's ExtraFiles[0]).
const reportFD = 3

// Helper exit codes for failures before the command runs, following the
// env(1)/timeout(1) convention: 125 the sandbox failed, 126 the command
// could not be executed, 127 it was not found.
const (
	exitSetup     = 125
	exitCannotRun = 126
	exitNotFound  = 127
)

// layerError is a failure to set up one layer.
type layerError struct {
	layer string
	err   error
}

func (e *layerError) Error() string { return e.layer + ": " + e.err.Error() }
func (e *layerError) Unwrap() error { return e.err }

// reporter writes report lines to the parent; without a report pipe (the
// helper started by hand) it only writes human messages to stderr.
type reporter struct{ f *os.File }

func newReporter() reporter {
	if _, err := unix.FcntlInt(reportFD, unix.F_GETFD, 0); err != nil {
		return reporter{}
	}
	// The command must not inherit the pipe: the parent reads until EOF.
	unix.CloseOnExec(reportFD)
	return reporter{f: os.NewFile(reportFD, "report")}
}

func (r reporter) send(l reportLine) {
	if r.f == nil {
		return
	}
	b, err := json.Marshal(l)
	if err != nil {
		return
	}
	// One write per line keeps lines whole (pipe writes up to PIPE_BUF are atomic).
	_, _ = r.f.Write(append(b, '\n'))
}

// HelperMain is the helper's entry point: args is os.Args. It confines the
// process as the spec says, then runs the command; it returns the exit
// status for os.Exit.
func HelperMain(args []string) int {
	// Mount and chdir calls act on the whole process, but keeping one thread
	// makes the order of restrictions and exec easy to reason about.
	runtime.LockOSThread()
	rep := newReporter()
	spec, argv, err := parseHelperArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docket sandbox helper:", err)
		rep.send(reportLine{Kind: reportSetupError, Layer: "spec", Error: err.Error()})
		return exitSetup
	}
	layers, err := confine(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docket sandbox:", err)
		l := reportLine{Kind: reportSetupError, Error: err.Error()}
		var le *layerError
		if errors.As(err, &le) {
			l.Layer = le.layer
		}
		rep.send(l)
		return exitSetup
	}
	rep.send(reportLine{Kind: reportLayers, Layers: layers})
	env := append(os.Environ(), spec.LoaderEnv...)
	if spec.NS.PID {
		return runInit(spec, argv, env, rep)
	}
	err = syscall.Exec(spec.Path, argv, env)
	return execFailed(spec.Path, err, rep)
}

// confine applies every layer in the order the kernel requires: mounts
// while the helper still has its capabilities, then the capability drop
// (for root), no_new_privs, Landlock (which forbids later mounts) and
// seccomp last (which forbids mount calls too). It returns the layers
// enforced.
func confine(spec helperSpec) ([]string, error) {
	// Before the mounts make /sys read-only.
	limits := applyLimits(spec)
	var extra []string
	if spec.NS.Mount {
		fsLayers, err := setupMounts(spec)
		if err != nil {
			return nil, &layerError{layer: LayerMountNS, err: err}
		}
		extra = fsLayers
		spec.privatePTY = contains(fsLayers, LayerDevpts)
	}
	// The ambient CAP_SYS_ADMIN an unprivileged parent gave us for the
	// mounts must not reach the command (capabilities are per thread, and
	// the command is started from this locked one).
	if err := dropInheritedCaps(); err != nil {
		return nil, &layerError{layer: LayerCaps, err: err}
	}
	root := os.Geteuid() == 0
	if root {
		if err := dropRootCaps(); err != nil {
			return nil, &layerError{layer: LayerCaps, err: err}
		}
	}
	// After the mounts the old working directory may lie under a mount
	// that now covers it; enter the new view.
	if err := os.Chdir(spec.Cwd); err != nil {
		return nil, &layerError{layer: "cwd", err: err}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return nil, &layerError{layer: "no_new_privs", err: err}
	}
	abi, err := applyLandlock(spec)
	if err != nil {
		return nil, &layerError{layer: "landlock", err: err}
	}
	if err := loadSeccomp(spec.Seccomp); err != nil {
		return nil, &layerError{layer: LayerSeccomp, err: err}
	}
	layers := []string{fmt.Sprintf("landlock:v%d", abi), LayerSeccomp}
	if root {
		layers = append(layers, LayerCaps)
	}
	if spec.NS.User {
		layers = append(layers, LayerUserNS)
	}
	if spec.NS.Mount {
		layers = append(layers, LayerMountNS)
	}
	if spec.NS.PID {
		layers = append(layers, LayerPIDNS)
	}
	if spec.NS.Net {
		layers = append(layers, LayerNetNS)
	}
	return append(append(layers, extra...), limits...), nil
}

// dropInheritedCaps clears this thread's ambient and inheritable
// capabilities, so that nothing passes to the command through execve.
func dropInheritedCaps() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Inheritable == 0 && data[1].Inheritable == 0 {
		return nil
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// execFailed reports a command that could not be started, with the shell's
// exit codes.
func execFailed(path string, err error, rep reporter) int {
	code := exitCannotRun
	if errors.Is(err, syscall.ENOENT) {
		code = exitNotFound
	}
	fmt.Fprintf(os.Stderr, "docket sandbox: %s: %v\n", path, err)
	rep.send(reportLine{Kind: reportExecError, Code: code, Error: err.Error()})
	return code
}
