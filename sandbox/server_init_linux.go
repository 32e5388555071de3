package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// The inits of the sandbox server: each is cloned, confined, from a thread
// of the server whose mount namespace it shares, waits for its one command
// (server_spawn_linux.c), and is given it by that thread, which first
// binds the command's protected paths in their shared namespace. One is
// kept ready ahead of the next command.

// run gives one command to a ready init, or to one started for it. It is
// called by the reader and returns at once (or once an init on its way is
// ready): the init's thread does the rest.
func (sv *serverState) run(cmd serverCommand, fds []int) {
	spec, err := sv.commandSpec(cmd, len(fds))
	if err != nil {
		closeFDs(fds)
		_ = sv.send(serverReply{Kind: serverSetupError, ID: cmd.ID, Layer: "spec", Error: err.Error()})
		return
	}
	r := sv.takeReady()
	if r == nil {
		r = sv.startInit()
	}
	r.jobs <- &initJob{cmd: cmd, spec: spec, fds: fds}
}

// initJob is one command for an init.
type initJob struct {
	cmd  serverCommand
	spec helperSpec
	fds  []int
}

// readyInit is an init being set up or confined and waiting for its
// command, with the locked thread whose mount namespace it shares. A nil
// job ends it unused.
type readyInit struct {
	jobs chan *initJob
	// fresh marks an init started for a job another init could not take.
	fresh bool
}

// takeReady takes the ready init, if there is one, and has the next one
// prepared.
func (sv *serverState) takeReady() *readyInit {
	sv.readyMu.Lock()
	defer sv.readyMu.Unlock()
	// One on its way is nearer than a new one.
	for sv.ready == nil && sv.preparing {
		sv.readyCond.Wait()
	}
	r := sv.ready
	sv.ready = nil
	return r
}

// prepare starts an init for the next command unless one is ready or on
// its way. It runs once the server is up and after each command ends, so
// that a call rarely waits for an init's setup.
func (sv *serverState) prepare() {
	sv.readyMu.Lock()
	defer sv.readyMu.Unlock()
	if sv.ready != nil || sv.preparing {
		return
	}
	sv.preparing = true
	go func() {
		r := sv.startInit()
		sv.readyMu.Lock()
		sv.preparing = false
		if sv.ready == nil {
			sv.ready, r = r, nil
		}
		sv.readyCond.Broadcast()
		sv.readyMu.Unlock()
		if r != nil {
			r.jobs <- nil
		}
	}()
}

// startInit starts an init on a new locked thread.
func (sv *serverState) startInit() *readyInit {
	r := &readyInit{jobs: make(chan *initJob, 1)}
	go sv.initThread(r)
	return r
}

// initThread sets up one init and runs the command it is given. Its
// goroutine locks its thread and never unlocks it: the thread's mount
// namespace is the init's, and the runtime ends such a thread with its
// goroutine.
func (sv *serverState) initThread(r *readyInit) {
	runtime.LockOSThread()
	in, layer, err := sv.spawnReadyInit()
	job := <-r.jobs
	if job == nil {
		if in != nil {
			in.close() // it never got a command: closing its socket makes it exit
		}
		return
	}
	defer sv.prepare()
	defer func() {
		if job != nil {
			closeFDs(job.fds)
		}
	}()
	refuse := func(layer string, err error) {
		_ = sv.send(serverReply{Kind: serverSetupError, ID: job.cmd.ID, Layer: layer, Error: err.Error()})
	}
	// handOff gives the job to an init started for it, when this one was
	// made ahead and failed (or died waiting) before the command was in
	// it. An init started for the job refuses instead.
	handOff := func() bool {
		if r.fresh {
			return false
		}
		nr := &readyInit{jobs: make(chan *initJob, 1), fresh: true}
		go sv.initThread(nr)
		nr.jobs <- job
		job = nil
		return true
	}
	if err != nil {
		if !handOff() {
			refuse(layer, err)
		}
		return
	}
	defer in.close()
	spec := job.spec
	// The command's own paths, bound in the mount namespace the init
	// shares with this thread: the stubs docket holds for this
	// call exist only now.
	if err := bindUnseen(spec); err != nil {
		refuse(layerProtectedPaths, err)
		return
	}
	for _, p := range spec.Protected {
		err := bindReadOnly(p)
		if errors.Is(err, unix.ENOENT) && contains(spec.Scanned, p) {
			continue
		}
		if err != nil {
			refuse(layerProtectedPaths, fmt.Errorf("protecting %s: %w", p, err))
			return
		}
	}
	if !spec.Network {
		var fresh []string
		for _, s := range spec.UnixSockets {
			if !sv.sockets[s] {
				fresh = append(fresh, s)
			}
		}
		if err := coverSockets(fresh); err != nil {
			refuse(layerProtectedPaths, err)
			return
		}
	}
	msg, err := encodeCommand(initCommand{path: spec.Path, cwd: spec.Cwd, argv: job.cmd.Argv, env: job.cmd.Env,
		ncgroup: job.cmd.Cgroups, rlimits: commandRlimits(spec),
		// Only a docketfault build's crash test turns the lifeline off.
		lifeline: !(job.cmd.NoLifeline && faultBuild)})
	if err != nil {
		refuse("spec", err)
		return
	}
	if err := sendCommand(in.ctl, msg, job.fds); err != nil {
		if !handOff() {
			refuse("init", err)
		}
		return
	}
	// The init has its copies. Ours must go at once: the exit pipe's EOF
	// is docket's word that the init is gone.
	closeFDs(job.fds)
	job.fds = nil
	st, err := readStatus(in.ctl)
	if err == nil && st.step != 0 {
		err = fmt.Errorf("%s: %w", stepName(st.step), syscall.Errno(st.err))
	}
	if err != nil {
		refuse(stepLayer(st.step), err)
		return
	}
	if err := sv.send(serverReply{Kind: serverStarted, ID: job.cmd.ID, Layers: sv.layers(spec, in.devpts, st.done)}, in.pidfd); err != nil {
		// docket cannot hear of it: no go, and the init exits unstarted.
		return
	}
	// An init already gone is told by the exit pipe and the done.
	_, _ = unix.Write(in.ctl, []byte{'g'})
	status := in.reap()
	_ = sv.send(serverReply{Kind: serverDone, ID: job.cmd.ID, Status: status})
}

// initProc is a confined init waiting for its command.
type initProc struct {
	pid, pidfd, ctl int
	devpts          bool
	reaped          bool
}

// spawnReadyInit unshares this thread's mount namespace, mounts a devpts
// of the command's own, builds the Landlock ruleset for it and clones the
// init, which confines itself and says it is ready. On failure it returns
// the layer that failed.
func (sv *serverState) spawnReadyInit() (*initProc, string, error) {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return nil, LayerMountNS, fmt.Errorf("unshare: %w", err)
	}
	// A devpts of the command's own, as the helper mounts: the ptys of a
	// command running beside it in the session are not in it. The
	// Landlock ruleset names this instance's /dev/pts, so it is built
	// after the mount.
	devpts, err := mountPrivateDevpts()
	if err != nil {
		return nil, LayerMountNS, err
	}
	lspec := sv.spec
	lspec.privatePTY = devpts
	ruleset, _, err := landlockRuleset(lspec)
	if err != nil {
		return nil, "landlock", err
	}
	defer func() { _ = unix.Close(ruleset) }() // the init has its copy
	devnull, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, "init", err
	}
	defer func() { _ = unix.Close(devnull) }() // the init has its copies
	ctl, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, "init", fmt.Errorf("socketpair: %w", err)
	}
	pid, pidfd, err := spawnInit(spawnArgs{
		fds:    []int{devnull, devnull, devnull, devnull, ctl[1], ruleset},
		filter: sv.spec.Seccomp, lastCap: sv.lastCap,
		cloneFlags: unix.CLONE_NEWPID | unix.CLONE_NEWIPC,
	})
	_ = unix.Close(ctl[1]) // the init has its copy
	if err != nil {
		_ = unix.Close(ctl[0])
		return nil, LayerPIDNS, err
	}
	in := &initProc{pid: pid, pidfd: pidfd, ctl: ctl[0], devpts: devpts}
	st, err := readStatus(in.ctl)
	if err == nil && st.step != 0 {
		err = fmt.Errorf("%s: %w", stepName(st.step), syscall.Errno(st.err))
	}
	if err != nil {
		in.close()
		return nil, stepLayer(st.step), err
	}
	return in, "", nil
}

// close closes the control socket (an init still waiting exits) and reaps.
func (in *initProc) close() {
	_ = unix.Close(in.ctl)
	in.reap()
	_ = unix.Close(in.pidfd)
}

func (in *initProc) reap() int {
	if in.reaped {
		return -1
	}
	in.reaped = true
	return reapInit(in.pid)
}

// sendCommand sends an encoded command with its descriptors on the
// control socket (a stream: the descriptors ride on the header).
func sendCommand(ctl int, msg []byte, fds []int) error {
	head, rest := msg[:commandHeaderSize], msg[commandHeaderSize:]
	for {
		n, err := unix.SendmsgN(ctl, head, unix.UnixRights(fds...), nil, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sending the command to the init: %w", err)
		}
		head = head[n:]
		break
	}
	rest = append(head, rest...)
	for len(rest) > 0 {
		n, err := unix.Write(ctl, rest)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sending the command to the init: %w", err)
		}
		rest = rest[n:]
	}
	return nil
}

// spawnArgs is one init's start, for spawnInit.
type spawnArgs struct {
	fds        []int
	filter     []byte
	lastCap    int
	cloneFlags int
}

// initCommand is the command an init is given.
type initCommand struct {
	path, cwd string
	argv, env []string
	ncgroup   int
	rlimits   []rlimitSpec
	lifeline  bool
}

// rlimitSpec is one rlimit the init sets on itself (lowering needs no
// capability), for the command to inherit.
type rlimitSpec struct {
	name       string
	resource   int
	soft, hard uint64
}

// commandRlimits are the rlimits applyLimits would set for spec:
// RLIMIT_NPROC only in a user namespace of the server's own, where it
// counts only the sandbox (outside one it would count every process of
// the uid on the host).
func commandRlimits(spec helperSpec) []rlimitSpec {
	var out []rlimitSpec
	l := spec.Limits
	if l.CPUSeconds > 0 {
		out = append(out, rlimitSpec{"cpu", unix.RLIMIT_CPU, uint64(l.CPUSeconds), uint64(l.CPUSeconds) + 1})
	}
	if l.FileSizeBytes > 0 {
		out = append(out, rlimitSpec{"fsize", unix.RLIMIT_FSIZE, uint64(l.FileSizeBytes), uint64(l.FileSizeBytes)})
	}
	if l.Processes > 0 && spec.NS.User {
		out = append(out, rlimitSpec{"nproc", unix.RLIMIT_NPROC, uint64(l.Processes), uint64(l.Processes)})
	}
	return out
}

// The status bits and steps of server_spawn_linux.h.
const (
	statusCgroup  = 1 << 0
	statusRlimit0 = 1 << 1
)

// initStatus is the init's one message before its go.
type initStatus struct {
	step, err int32
	done      uint32
}

// readStatus reads one of the init's status messages; an init that died
// first is an error.
func readStatus(fd int) (initStatus, error) {
	var st initStatus
	b := make([]byte, 12)
	for got := 0; got < len(b); {
		n, err := unix.Read(fd, b[got:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return st, fmt.Errorf("reading the init's status: %w", err)
		}
		if n == 0 {
			return st, errors.New("the init exited before it was confined")
		}
		got += n
	}
	st.step = int32(binary.NativeEndian.Uint32(b[0:4]))
	st.err = int32(binary.NativeEndian.Uint32(b[4:8]))
	st.done = binary.NativeEndian.Uint32(b[8:12])
	return st, nil
}

// stepName and stepLayer name a failed step of the init's setup.
func stepName(step int32) string {
	names := map[int32]string{1: "descriptors", 2: "mounting /proc", 3: "dropping capabilities", 4: "entering the working directory",
		5: "no_new_privs", 6: "landlock", 7: "seccomp", 8: "checking the confinement", 9: "signals", 10: "receiving the command"}
	if n, ok := names[step]; ok {
		return n
	}
	return "init"
}

func stepLayer(step int32) string {
	switch step {
	case 2:
		return LayerPIDNS
	case 3, 8:
		return LayerCaps
	case 4:
		return "cwd"
	case 6:
		return "landlock"
	case 7:
		return LayerSeccomp
	}
	return "init"
}

// reapInit waits for the init and returns its raw wait status.
func reapInit(pid int) int {
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(pid, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return -1
		}
		return int(ws)
	}
}
