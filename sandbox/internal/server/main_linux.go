package server

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/sandbox/internal/confine"
	"github.com/docket-engine/docket/sandbox/internal/initc"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/internal/wire"
	"github.com/docket-engine/docket/sandbox/layers"
)

// The sandbox server: a helper started once per session and plan, in the
// mount, network, IPC and UTS namespaces docket created for it, that has
// built the plan's mount layout and forks each command's init from there.
// Each command still gets a PID and IPC namespace, a mount namespace, a
// Landlock domain and a seccomp filter of its own (sandbox/internal/initc);
// what the commands share is what the plan gives them all (the layout of
// the roots, the empty network namespace, the host name).

// serverState is what the server keeps for the session.
type serverState struct {
	spec    proto.Spec
	sock    int
	abi     int
	lastCap int
	sendMu  sync.Mutex

	// heap is the Go heap's range as the inits' clones found it
	// (initc.Args.Heap), guarded by syscall.ForkLock.
	heap initc.HeapCache

	readyMu   sync.Mutex
	readyCond *sync.Cond
	ready     *readyInit
	preparing bool
	// reading is the ready init whose thread has the reading role
	// (reader_linux.go); wake is the eventfd a ready init asks for it
	// through (-1: none, nobody asks); back is the role handed back.
	reading *readyInit
	wake    int
	back    chan roleBack
}

// Serve runs the server until docket closes its socket, and returns
// the exit status.
func Serve(spec proto.Spec) int {
	sv := &serverState{spec: spec, sock: proto.ServerFD, wake: -1, back: make(chan roleBack, 1)}
	sv.readyCond = sync.NewCond(&sv.readyMu)
	if _, err := unix.FcntlInt(proto.ServerFD, unix.F_GETFD, 0); err != nil {
		fmt.Fprintln(os.Stderr, "docket sandbox server: no socket at descriptor 3")
		return proto.ExitSetup
	}
	unix.CloseOnExec(proto.ServerFD)
	if err := sv.setup(); err != nil {
		l := proto.ReportLine{Error: err.Error()}
		var le *confine.LayerError
		if errors.As(err, &le) {
			l.Layer = le.Layer
		}
		_ = sv.send(proto.ServerReply{Kind: proto.ServerSetupError, Layer: l.Layer, Error: l.Error})
		return proto.ExitSetup
	}
	if err := sv.send(proto.ServerReply{Kind: proto.ServerReady}); err != nil {
		return proto.ExitSetup
	}
	role := &readRole{buf: make([]byte, wire.MaxMessage), oob: make([]byte, wire.OOBSpace())}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		// No ready init can ask for the role: Serve's loop reads every
		// command and hands it over (reader_linux.go).
		sv.prepare()
		sv.readLoop(role)
		return 0
	}
	sv.wake = wake
	sv.prepare()
	// Until docket is gone. Each init watches its exit pipe and takes its
	// namespace down on its own.
	sv.serveLoop(role)
	return 0
}

// setup builds what every command of the session shares: the mount layout
// (without the per-command paths), the Landlock ruleset, the capability
// count.
func (sv *serverState) setup() error {
	if !initc.CanSpawn {
		return &confine.LayerError{Layer: "server", Err: errors.New("this binary was built without cgo")}
	}
	// The layers each command gets are its own (see layers).
	_, err := confine.SetupMounts(sv.spec)
	var pe *confine.PathSetupError
	if errors.As(err, &pe) {
		return &confine.LayerError{Layer: proto.LayerProtectedPaths, Err: err}
	}
	if err != nil {
		return &confine.LayerError{Layer: layers.MountNS, Err: err}
	}
	// Each command gets a ruleset of its own (its devpts is its own); one
	// built here checks Landlock and fixes the ABI the layers name.
	ruleset, abi, err := confine.LandlockRuleset(sv.spec)
	if err != nil {
		return &confine.LayerError{Layer: "landlock", Err: err}
	}
	_ = unix.Close(ruleset) // only built to check
	sv.abi = abi
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return &confine.LayerError{Layer: layers.Caps, Err: err}
	}
	if sv.lastCap, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
		return &confine.LayerError{Layer: layers.Caps, Err: err}
	}
	return nil
}

func (sv *serverState) send(r proto.ServerReply, fds ...int) error {
	sv.sendMu.Lock()
	defer sv.sendMu.Unlock()
	return wire.Send(sv.sock, r, fds...)
}

// commandSpec is the session's spec with one command's fields, checked as
// the helper checks its own.
func (sv *serverState) commandSpec(cmd proto.ServerCommand, nfds int) (proto.Spec, error) {
	s := sv.spec
	s.Server = false
	s.NS.PID = true
	s.CallSpec = cmd.CallSpec
	want := 4 + cmd.Cgroups
	if cmd.Gated {
		want++
	}
	if nfds != want || cmd.Cgroups < 0 || cmd.Cgroups > 4 {
		return s, fmt.Errorf("command %d: %d descriptors for %d cgroup files", cmd.ID, nfds, cmd.Cgroups)
	}
	if len(cmd.Argv) == 0 {
		return s, fmt.Errorf("command %d: empty argv", cmd.ID)
	}
	for _, v := range append(append([]string{cmd.Path, cmd.Cwd}, cmd.Argv...), cmd.Env...) {
		if strings.ContainsRune(v, 0) {
			return s, fmt.Errorf("command %d: a NUL byte in an argument or variable", cmd.ID)
		}
	}
	return s, s.Validate()
}

// layers lists what one command's init enforces, in the order the helper
// reports them.
func (sv *serverState) layers(spec proto.Spec, devpts bool, done uint32) []string {
	l := []string{fmt.Sprintf("landlock:v%d", sv.abi), layers.Seccomp, layers.Caps}
	if spec.NS.User {
		l = append(l, layers.UserNS)
	}
	l = append(l, layers.MountNS, layers.PIDNS)
	if spec.NS.Net {
		l = append(l, layers.NetNS)
	}
	l = append(l, layers.IPCNS, layers.UTSNS)
	if spec.GitScan != "" {
		l = append(l, proto.GitDirsLayer(spec.GitScan))
	}
	if !spec.Network {
		if spec.UnixSocketsPartial {
			l = append(l, layers.UnixSockets+":partial")
		} else {
			l = append(l, layers.UnixSockets)
		}
	}
	if devpts {
		l = append(l, layers.Devpts)
	}
	if done&initc.StatusCgroup != 0 && spec.Limits.Cgroup != "" {
		l = append(l, spec.Limits.Cgroup)
	}
	var set []string
	for i, r := range commandRlimits(spec) {
		if done&(initc.StatusRlimit0<<i) != 0 {
			set = append(set, r.Name)
		}
	}
	if len(set) > 0 {
		l = append(l, layers.Rlimit+":"+strings.Join(set, ","))
	}
	return l
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		_ = unix.Close(fd) // received and not used: nothing was written through it
	}
}
