package server

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/sandbox/internal/confine"
	"github.com/docket-engine/docket/sandbox/internal/initc"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/layers"
)

// The inits of the sandbox server: each is cloned, confined, from a thread
// of the server whose mount namespace it shares, waits for its one command
// (sandbox/internal/initc), and is given it by that thread, which first
// binds the command's protected paths in their shared namespace. One is
// kept ready ahead of the next command.

// run gives one command to a ready init, or to one started for it. It is
// called by the reader and returns at once (or once an init on its way is
// ready): the init's thread does the rest.
func (sv *serverState) run(cmd proto.ServerCommand, fds []int) {
	spec, err := sv.commandSpec(cmd, len(fds))
	if err != nil {
		closeFDs(fds)
		_ = sv.send(proto.ServerReply{Kind: proto.ServerSetupError, ID: cmd.ID, Layer: "spec", Error: err.Error()})
		return
	}
	r := sv.takeReady()
	if r == nil {
		r = sv.startInit()
	}
	r.jobs <- newJob(cmd, spec, fds)
}

// newJob is a checked command (commandSpec) with its descriptors.
func newJob(cmd proto.ServerCommand, spec proto.Spec, fds []int) *initJob {
	job := &initJob{cmd: cmd, spec: spec, fds: fds, goFD: -1}
	if cmd.Gated {
		// The go pipe is the thread's to read, never the init's.
		job.goFD, job.fds = fds[len(fds)-1], fds[:len(fds)-1]
	}
	return job
}

// initJob is one command for an init.
type initJob struct {
	cmd  proto.ServerCommand
	spec proto.Spec
	fds  []int
	// goFD is a gated command's go pipe (proto.ServerCommand.Gated); -1
	// for one that starts at once.
	goFD int
}

// close closes what the job still holds.
func (j *initJob) close() {
	closeFDs(j.fds)
	j.fds = nil
	if j.goFD >= 0 {
		_ = unix.Close(j.goFD) // a read end: nothing to lose
		j.goFD = -1
	}
}

// awaitGo waits for a gated command's go: true once docket wrote it,
// false at end of file (the call abandoned, or docket gone).
func (j *initJob) awaitGo() bool {
	if j.goFD < 0 {
		return true
	}
	var b [1]byte
	for {
		n, err := unix.Read(j.goFD, b[:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n == 1 && b[0] == 'g'
	}
}

// readyInit is an init being set up or confined and waiting for its
// command, with the locked thread whose mount namespace it shares. A nil
// job ends it unused.
type readyInit struct {
	jobs chan *initJob
	// role brings the reading role instead of a job (reader_linux.go);
	// asks says the init is confined and its thread asked for the role.
	role chan *readRole
	asks bool
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
	if sv.ready != nil || sv.preparing || sv.reading != nil {
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
	r := &readyInit{jobs: make(chan *initJob, 1), role: make(chan *readRole, 1)}
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
	if err == nil && !r.fresh && sv.wake >= 0 {
		sv.askRole(r)
	}
	var job *initJob
	select {
	case job = <-r.jobs:
	case role := <-r.role:
		// Its own command, read by this thread (reader_linux.go); nil:
		// docket is gone.
		job = sv.readOwn(role)
	}
	if job == nil {
		if in != nil {
			in.close() // it never got a command: closing its socket makes it exit
		}
		return
	}
	defer sv.prepare()
	defer func() {
		if job != nil {
			job.close()
		}
	}()
	refuse := func(layer string, err error) {
		_ = sv.send(proto.ServerReply{Kind: proto.ServerSetupError, ID: job.cmd.ID, Layer: layer, Error: err.Error()})
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
	if err := confine.BindUnseen(spec); err != nil {
		refuse(proto.LayerProtectedPaths, err)
		return
	}
	for _, p := range spec.Protected {
		err := confine.BindReadOnly(p)
		if errors.Is(err, unix.ENOENT) && slices.Contains(spec.Scanned, p) {
			continue
		}
		if err != nil {
			refuse(proto.LayerProtectedPaths, fmt.Errorf("protecting %s: %w", p, err))
			return
		}
	}
	if !spec.Network {
		// Every socket the call found, not only those bound since the
		// server started: one the server covered may have been unlinked on
		// the host since (which takes the cover away) and bound again.
		// A socket still covered is /dev/null here and is skipped.
		if err := confine.CoverSockets(spec.UnixSockets); err != nil {
			refuse(proto.LayerProtectedPaths, err)
			return
		}
	}
	msg, err := initc.Encode(initc.Command{Path: spec.Path, Cwd: spec.Cwd, Argv: job.cmd.Argv, Env: job.cmd.Env,
		NCgroup: job.cmd.Cgroups, Rlimits: commandRlimits(spec),
		// Only a docketfault build's crash test turns the lifeline off.
		Lifeline: !(job.cmd.NoLifeline && proto.FaultBuild)})
	if err != nil {
		refuse("spec", err)
		return
	}
	if err := initc.SendCommand(in.ctl, msg, job.fds); err != nil {
		if !handOff() {
			refuse("init", err)
		}
		return
	}
	// The init has its copies. Ours must go at once: the exit pipe's EOF
	// is docket's word that the init is gone.
	closeFDs(job.fds)
	job.fds = nil
	st, err := initc.ReadStatus(in.ctl)
	if err == nil && st.Step != 0 {
		err = fmt.Errorf("%s: %w", initc.StepName(st.Step), syscall.Errno(st.Err))
	}
	if err != nil {
		refuse(initc.StepLayer(st.Step), err)
		return
	}
	if err := sv.send(proto.ServerReply{Kind: proto.ServerStarted, ID: job.cmd.ID, Layers: sv.layers(spec, in.devpts, st.Done)}, in.pidfd); err != nil {
		// docket cannot hear of it: no go, and the init exits unstarted.
		return
	}
	// A gated command starts only on docket's go; without it, this
	// returns and closing the control socket makes the init exit, its
	// command never started.
	if !job.awaitGo() {
		return
	}
	// An init already gone is told by the exit pipe and the done.
	_, _ = unix.Write(in.ctl, []byte{'g'})
	status := in.reap()
	_ = sv.send(proto.ServerReply{Kind: proto.ServerDone, ID: job.cmd.ID, Status: status})
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
		return nil, layers.MountNS, fmt.Errorf("unshare: %w", err)
	}
	// A devpts of the command's own, as the helper mounts: the ptys of a
	// command running beside it in the session are not in it. The
	// Landlock ruleset names this instance's /dev/pts, so it is built
	// after the mount.
	devpts, err := confine.MountPrivateDevpts()
	if err != nil {
		return nil, layers.MountNS, err
	}
	lspec := sv.spec
	lspec.PrivatePTY = devpts
	ruleset, _, err := confine.LandlockRuleset(lspec)
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
	pid, pidfd, err := initc.Spawn(initc.Args{
		FDs:    []int{devnull, devnull, devnull, devnull, ctl[1], ruleset},
		Filter: sv.spec.Seccomp, LastCap: sv.lastCap, Securebits: confine.LockedSecurebits,
		CloneFlags: unix.CLONE_NEWPID | unix.CLONE_NEWIPC, Heap: &sv.heap,
	})
	_ = unix.Close(ctl[1]) // the init has its copy
	if err != nil {
		_ = unix.Close(ctl[0])
		return nil, layers.PIDNS, err
	}
	in := &initProc{pid: pid, pidfd: pidfd, ctl: ctl[0], devpts: devpts}
	st, err := initc.ReadStatus(in.ctl)
	if err == nil && st.Step != 0 {
		err = fmt.Errorf("%s: %w", initc.StepName(st.Step), syscall.Errno(st.Err))
	}
	if err != nil {
		in.close()
		return nil, initc.StepLayer(st.Step), err
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
	return initc.Reap(in.pid)
}

// commandRlimits are the rlimits applyLimits would set for spec:
// RLIMIT_NPROC only in a user namespace of the server's own, where it
// counts only the sandbox (outside one it would count every process of
// the uid on the host).
func commandRlimits(spec proto.Spec) []initc.Rlimit {
	var out []initc.Rlimit
	l := spec.Limits
	if l.CPUSeconds > 0 {
		out = append(out, initc.Rlimit{Name: "cpu", Resource: unix.RLIMIT_CPU, Soft: uint64(l.CPUSeconds), Hard: uint64(l.CPUSeconds) + 1})
	}
	if l.FileSizeBytes > 0 {
		out = append(out, initc.Rlimit{Name: "fsize", Resource: unix.RLIMIT_FSIZE, Soft: uint64(l.FileSizeBytes), Hard: uint64(l.FileSizeBytes)})
	}
	if l.Processes > 0 && spec.NS.User {
		out = append(out, initc.Rlimit{Name: "nproc", Resource: unix.RLIMIT_NPROC, Soft: uint64(l.Processes), Hard: uint64(l.Processes)})
	}
	return out
}
