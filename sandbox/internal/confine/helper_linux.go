package confine

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"syscall"

	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/internal/wire"
	"github.com/docket-engine/docket/sandbox/layers"
	"golang.org/x/sys/unix"
)

// LayerError is a failure to set up one layer.
type LayerError struct {
	// Layer names the layer, as the setup error's report line does.
	Layer string
	Err   error
}

func (e *LayerError) Error() string { return e.Layer + ": " + e.Err.Error() }
func (e *LayerError) Unwrap() error { return e.Err }

// Main is the helper's entry point: args is os.Args. It confines the
// process as the spec says, then runs the command; it returns the exit
// status for os.Exit. A spec that starts a sandbox server goes to serve
// (sandbox/internal/server's Serve, which only the docket binary links:
// the server's init is C); with serve nil, as in the CGO-free lean helper,
// the server is refused on its socket.
//
// With a PID namespace it stays as the namespace's init while the command
// runs, so every one of its threads must hold no capability first. A root
// docket starts it from a thread whose bounding set holds only
// proto.SetupCaps, so the helper drops those few on every thread by
// broadcast and runs the init itself. Otherwise (a user namespace, whose
// bounding set is always full; dropping 41 capabilities by broadcast costs
// milliseconds) it re-executes the binary docket verified from the thread
// that dropped everything: the init stage starts single-threaded without
// any. Either way the init reports the layers, closes the setup pipe, and
// only then runs the command.
func Main(args []string, serve func(proto.Spec) int) int {
	// Nothing the command can do may reach this process's memory or
	// descriptors (ptrace, /proc/1/mem, /proc/1/fd, process_vm_*,
	// pidfd_getfd all need it dumpable, or capabilities it will not have).
	// execve makes a process dumpable again, so each stage sets it.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	// Mount and chdir calls act on the whole process, but keeping one thread
	// makes the order of restrictions and exec easy to reason about, and
	// capabilities are dropped on this thread, which then runs the next stage.
	runtime.LockOSThread()
	ch := openChannels()
	spec, argv, err := proto.Parse(args)
	tr := proto.HelperTracer(spec)
	tr.Mark("helper.main")
	if err != nil {
		fmt.Fprintln(os.Stderr, "docket sandbox helper:", err)
		ch.sendSetup(proto.ReportLine{Kind: proto.ReportSetupError, Layer: "spec", Error: err.Error()})
		return proto.ExitSetup
	}
	if spec.Server {
		if serve == nil {
			return refuseServer()
		}
		return serve(spec)
	}
	env := append(os.Environ(), spec.LoaderEnv...)
	if spec.Init {
		return runInit(spec, argv, env, &ch, tr)
	}
	layers, everyThread, err := confine(spec, tr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docket sandbox:", err)
		l := proto.ReportLine{Kind: proto.ReportSetupError, Error: err.Error()}
		var le *LayerError
		if errors.As(err, &le) {
			l.Layer = le.Layer
		}
		ch.sendSetup(l)
		return proto.ExitSetup
	}
	if spec.NS.PID && everyThread {
		spec.Layers = layers
		return runInit(spec, argv, env, &ch, tr)
	}
	if spec.NS.PID {
		tr.Mark("init.exec")
		return execInit(spec, argv, layers, &ch)
	}
	// The helper becomes the command: the setup pipe, the exit pipe and the
	// binary descriptor are close-on-exec, and so is everything else above 2.
	if err := proto.CloexecFrom(3); err != nil {
		ch.sendSetup(proto.ReportLine{Kind: proto.ReportSetupError, Layer: "fds", Error: err.Error()})
		return proto.ExitSetup
	}
	ch.sendSetup(proto.ReportLine{Kind: proto.ReportLayers, Layers: layers})
	tr.Mark("command.exec")
	err = syscall.Exec(spec.Path, argv, env)
	return execFailed(spec.Path, err, &ch)
}

// execInit re-executes the verified helper binary as the init stage, from
// this (capability-free) thread, handing it the layers to report.
func execInit(spec proto.Spec, argv, layers []string, ch *channels) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "docket sandbox: starting the init stage:", err)
		ch.sendSetup(proto.ReportLine{Kind: proto.ReportSetupError, Layer: "init", Error: err.Error()})
		return proto.ExitSetup
	}
	next := spec
	// The trace descriptor does not pass to the init stage.
	next.Init, next.Layers, next.Trace = true, layers, false
	args, err := proto.Args(os.Args[0], next, argv)
	if err != nil {
		return fail(err)
	}
	// The three protocol descriptors pass to the next stage; nothing else does.
	if err := proto.CloexecFrom(3); err != nil {
		return fail(err)
	}
	for _, fd := range []int{proto.SetupFD, proto.ExitFD, proto.BinaryFD} {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
			return fail(fmt.Errorf("descriptor %d: %w", fd, err))
		}
	}
	// The helper's own environment: the loader variables stay in the spec.
	return fail(syscall.Exec(proto.BinaryExecPath, args, os.Environ()))
}

// confine applies every layer in the order the kernel requires: mounts
// while the helper still has its capabilities, then the drop of every
// capability, no_new_privs, Landlock (which forbids later mounts) and
// seccomp last (which forbids mount calls too). It returns the layers
// enforced.
//
// everyThread says whether every thread of the helper holds no capability
// now; when it is false and the helper stays as init, it must re-exec.
func confine(spec proto.Spec, tr *proto.Tracer) (enforced []string, everyThread bool, err error) {
	// Before the mounts make /sys read-only.
	limits := applyLimits(spec)
	tr.Mark("limits")
	var extra []string
	if spec.NS.Mount {
		fsLayers, err := SetupMounts(spec)
		var pe *PathSetupError
		if errors.As(err, &pe) {
			return nil, false, &LayerError{Layer: proto.LayerProtectedPaths, Err: err}
		}
		if err != nil {
			return nil, false, &LayerError{Layer: layers.MountNS, Err: err}
		}
		extra = fsLayers
		spec.PrivatePTY = slices.Contains(fsLayers, layers.Devpts)
		tr.Mark("mounts")
	}
	if spec.Bridge {
		// Inside the network namespace, with CAP_NET_ADMIN over it still.
		if err := sendBridgeListener(spec.BridgeFD); err != nil {
			return nil, false, &LayerError{Layer: layers.Egress, Err: err}
		}
		extra = append(extra, layers.Egress)
	}
	// From here on the helper needs no capability, and the command must
	// start with none: not root's, not the ambient CAP_SYS_ADMIN an
	// unprivileged parent gave for the mounts. This thread runs the next
	// stage or the command.
	noCaps, everyThread, err := dropCaps(spec.NS.PID)
	if err != nil {
		return nil, false, &LayerError{Layer: layers.Caps, Err: err}
	}
	tr.Mark("caps")
	// After the mounts the old working directory may lie under a mount
	// that now covers it; enter the new view.
	if err := os.Chdir(spec.Cwd); err != nil {
		return nil, false, &LayerError{Layer: "cwd", Err: err}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return nil, false, &LayerError{Layer: "no_new_privs", Err: err}
	}
	abi, err := applyLandlock(spec)
	if err != nil {
		return nil, false, &LayerError{Layer: "landlock", Err: err}
	}
	tr.Mark("landlock")
	if err := loadSeccomp(spec.Seccomp); err != nil {
		return nil, false, &LayerError{Layer: layers.Seccomp, Err: err}
	}
	tr.Mark("seccomp")
	enforced = []string{fmt.Sprintf("landlock:v%d", abi), layers.Seccomp}
	if noCaps {
		enforced = append(enforced, layers.Caps)
	}
	if spec.NS.User {
		enforced = append(enforced, layers.UserNS)
	}
	if spec.NS.Mount {
		enforced = append(enforced, layers.MountNS)
	}
	if spec.NS.PID {
		enforced = append(enforced, layers.PIDNS)
	}
	if spec.NS.Net {
		enforced = append(enforced, layers.NetNS)
	}
	if spec.NS.IPC {
		enforced = append(enforced, layers.IPCNS)
	}
	if spec.NS.UTS {
		enforced = append(enforced, layers.UTSNS)
	}
	return append(append(enforced, extra...), limits...), everyThread, nil
}

// execFailed reports a command that could not be started, with the shell's
// exit codes.
func execFailed(path string, err error, ch *channels) int {
	code := proto.ExitCannotRun
	if errors.Is(err, syscall.ENOENT) {
		code = proto.ExitNotFound
	}
	fmt.Fprintf(os.Stderr, "docket sandbox: %s: %v\n", path, err)
	ch.sendExit(proto.ReportLine{Kind: proto.ReportExecError, Code: code, Error: err.Error()})
	return code
}

// refuseServer answers a server's start, in a binary that links no
// server, with the setup error a server without cgo gives.
func refuseServer() int {
	fmt.Fprintln(os.Stderr, "docket sandbox: this helper runs no sandbox server")
	_ = wire.Send(proto.ServerFD, proto.ServerReply{Kind: proto.ServerSetupError, Layer: "server", Error: "this binary was built without cgo"})
	return proto.ExitSetup
}
