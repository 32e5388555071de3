package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// The sandbox server: a helper started once per session and plan, in the
// mount, network, IPC and UTS namespaces docket created for it, that has
// built the plan's mount layout and forks each command's init from there.
// Each command still gets a PID and IPC namespace, a mount namespace, a
// Landlock domain and a seccomp filter of its own (server_spawn_linux.c);
// what the commands share is what the plan gives them all (the layout of
// the roots, the empty network namespace, the host name).

// serverState is what the server keeps for the session.
type serverState struct {
	spec    helperSpec
	sock    int
	abi     int
	lastCap int
	// sockets are the host's unix sockets covered in the base layout.
	sockets map[string]bool
	sendMu  sync.Mutex

	readyMu   sync.Mutex
	readyCond *sync.Cond
	ready     *readyInit
	preparing bool
}

// serveSandbox runs the server until docket closes its socket, and returns
// the exit status.
func serveSandbox(spec helperSpec) int {
	sv := &serverState{spec: spec, sock: serverFD}
	sv.readyCond = sync.NewCond(&sv.readyMu)
	if _, err := unix.FcntlInt(serverFD, unix.F_GETFD, 0); err != nil {
		fmt.Fprintln(os.Stderr, "docket sandbox server: no socket at descriptor 3")
		return exitSetup
	}
	unix.CloseOnExec(serverFD)
	if err := sv.setup(); err != nil {
		l := reportLine{Error: err.Error()}
		var le *layerError
		if errors.As(err, &le) {
			l.Layer = le.layer
		}
		_ = sv.send(serverReply{Kind: serverSetupError, Layer: l.Layer, Error: l.Error})
		return exitSetup
	}
	if err := sv.send(serverReply{Kind: serverReady}); err != nil {
		return exitSetup
	}
	sv.prepare()
	buf := make([]byte, maxServerMessage)
	oob := make([]byte, unix.CmsgSpace(maxServerFDs*4))
	for {
		var cmd serverCommand
		fds, err := recvMessage(sv.sock, buf, oob, &cmd)
		if errors.Is(err, errPeerGone) || errors.Is(err, unix.EBADF) || errors.Is(err, unix.ECONNRESET) {
			// docket is gone. Each init watches its exit pipe and takes
			// its namespace down on its own.
			return 0
		}
		if err != nil {
			_ = sv.send(serverReply{Kind: serverSetupError, ID: cmd.ID, Layer: "server", Error: err.Error()})
			continue
		}
		sv.run(cmd, fds)
	}
}

// setup builds what every command of the session shares: the mount layout
// (without the per-command paths), the Landlock ruleset, the capability
// count.
func (sv *serverState) setup() error {
	if !serverCanSpawn {
		return &layerError{layer: "server", err: errors.New("this binary was built without cgo")}
	}
	// The layers each command gets are its own (see layers).
	_, err := setupMounts(sv.spec)
	var pe *pathSetupError
	if errors.As(err, &pe) {
		return &layerError{layer: layerProtectedPaths, err: err}
	}
	if err != nil {
		return &layerError{layer: LayerMountNS, err: err}
	}
	sv.sockets = map[string]bool{}
	for _, s := range sv.spec.UnixSockets {
		sv.sockets[s] = true
	}
	// Each command gets a ruleset of its own (its devpts is its own); one
	// built here checks Landlock and fixes the ABI the layers name.
	ruleset, abi, err := landlockRuleset(sv.spec)
	if err != nil {
		return &layerError{layer: "landlock", err: err}
	}
	_ = unix.Close(ruleset) // only built to check
	sv.abi = abi
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return &layerError{layer: LayerCaps, err: err}
	}
	if sv.lastCap, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
		return &layerError{layer: LayerCaps, err: err}
	}
	return nil
}

func (sv *serverState) send(r serverReply, fds ...int) error {
	sv.sendMu.Lock()
	defer sv.sendMu.Unlock()
	return sendMessage(sv.sock, r, fds...)
}

// commandSpec is the session's spec with one command's fields, checked as
// the helper checks its own.
func (sv *serverState) commandSpec(cmd serverCommand, nfds int) (helperSpec, error) {
	s := sv.spec
	s.Server = false
	s.NS.PID = true
	s.Path, s.Cwd = cmd.Path, cmd.Cwd
	s.Protected, s.Scanned, s.Unseen = cmd.Protected, cmd.Scanned, cmd.Unseen
	s.UnixSockets, s.UnixSocketsPartial = cmd.UnixSockets, cmd.UnixSocketsPartial
	s.GitScan, s.Limits = cmd.GitScan, cmd.Limits
	if nfds != 4+cmd.Cgroups || cmd.Cgroups < 0 || cmd.Cgroups > 4 {
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
	return s, s.validate()
}

// layers lists what one command's init enforces, in the order the helper
// reports them.
func (sv *serverState) layers(spec helperSpec, devpts bool, done uint32) []string {
	l := []string{fmt.Sprintf("landlock:v%d", sv.abi), LayerSeccomp, LayerCaps}
	if spec.NS.User {
		l = append(l, LayerUserNS)
	}
	l = append(l, LayerMountNS, LayerPIDNS)
	if spec.NS.Net {
		l = append(l, LayerNetNS)
	}
	l = append(l, LayerIPCNS, LayerUTSNS)
	if spec.GitScan != "" {
		l = append(l, gitDirsLayer(spec.GitScan))
	}
	if !spec.Network {
		if spec.UnixSocketsPartial {
			l = append(l, LayerUnixSockets+":partial")
		} else {
			l = append(l, LayerUnixSockets)
		}
	}
	if devpts {
		l = append(l, LayerDevpts)
	}
	if done&statusCgroup != 0 && spec.Limits.Cgroup != "" {
		l = append(l, spec.Limits.Cgroup)
	}
	var set []string
	for i, r := range commandRlimits(spec) {
		if done&(statusRlimit0<<i) != 0 {
			set = append(set, r.name)
		}
	}
	if len(set) > 0 {
		l = append(l, LayerRlimit+":"+strings.Join(set, ","))
	}
	return l
}
