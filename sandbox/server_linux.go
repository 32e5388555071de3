package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/sandbox/internal/mounttable"
	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/internal/wire"
)

// server is one running sandbox server, from docket's side.
type server struct {
	sock int
	proc *os.Process
	// exited is closed once the server process has been reaped.
	exited chan struct{}
	// dead is closed when the socket failed (the server exited or was
	// stopped); err says why. No command is sent after that.
	dead chan struct{}

	mu       sync.Mutex
	err      error
	nextID   uint64
	calls    map[uint64]*serverCall
	inflight int
	lastUse  time.Time
	sendMu   sync.Mutex
	stopOnce sync.Once
}

// serverCall is one command's replies.
type serverCall struct {
	started chan serverMessage // started or setup_error
	done    chan serverMessage
}

type serverMessage struct {
	reply proto.ServerReply
	fds   []int
}

// serverKey names what a server built: every field of the base spec but
// the host's unix sockets, and which directory (device and inode) each
// writable root is. A root removed and made again is another directory:
// the server's layout holds the old one, so the plan gets a new server.
// The sockets are not the plan's: any program on the host binds and closes
// them, and each command covers the ones its call found (sandbox/internal/server/init_linux.go),
// so keying on them started a server whenever a socket came or went.
func serverKey(base Spec) string {
	base.UnixSockets = nil
	b, _ := json.Marshal(base) // a struct of strings, bools and bytes: cannot fail
	h := sha256.New()
	h.Write(b)
	for _, r := range base.Writable {
		var st unix.Stat_t
		if err := unix.Stat(r, &st); err == nil {
			fmt.Fprintf(h, "\x00%s\x00%d:%d", r, st.Dev, st.Ino)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// serverBase is spec without anything one command brings: what a server
// for it builds once. Without root the server's namespaces are made
// through a user namespace, as the helper's are.
func serverBase(spec Spec, root bool) Spec {
	b := spec
	b.Server = true
	b.NS = proto.Namespaces{User: !root, Mount: true, Net: !spec.Network, IPC: true, UTS: true}
	// The host's sockets known now are covered in the server's layout
	// (each command covers what its call finds, see sandbox/internal/server/init_linux.go).
	b.CallSpec = proto.CallSpec{UnixSockets: spec.UnixSockets}
	b.LoaderEnv, b.Trace, b.Init, b.Layers = nil, false, false, nil
	return b
}

// get returns the running server for base, starting one when there is
// none (or the last one died).
func (s *Servers) get(req Request, base Spec) (*server, error) {
	key := serverKey(base)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errServersClosed
	}
	if err := s.failed[key]; err != nil {
		return nil, err
	}
	if s.mountsChangedLocked() {
		s.retireAllLocked()
	}
	if sv := s.byKey[key]; sv != nil {
		if sv.alive() {
			sv.use(1)
			return sv, nil
		}
		delete(s.byKey, key)
		s.later(func() { _ = sv.close() }) // already dead: this only reaps it
	}
	binary := s.Binary
	if binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("sandbox: finding the server binary: %w", err)
		}
		binary = exe
	}
	sv, err := startServer(req, binary, base)
	if err != nil {
		if s.failed == nil {
			s.failed = map[string]error{}
		}
		s.failed[key] = err
		return nil, err
	}
	if s.byKey == nil {
		s.byKey = map[string]*server{}
	}
	s.evictLocked()
	s.byKey[key] = sv
	sv.use(1)
	return sv, nil
}

// evictLocked stops the least recently used idle server once there are
// maxServers.
func (s *Servers) evictLocked() {
	if len(s.byKey) < maxServers {
		return
	}
	var oldKey string
	var old *server
	var oldLast time.Time // old's lastUse as read under its lock: it changes under calls
	for k, sv := range s.byKey {
		sv.mu.Lock()
		idle, last := sv.inflight == 0, sv.lastUse
		sv.mu.Unlock()
		if idle && (old == nil || last.Before(oldLast)) {
			oldKey, old, oldLast = k, sv, last
		}
	}
	if old != nil {
		delete(s.byKey, oldKey)
		s.later(func() { _ = old.close() }) // idle: nothing of a command depends on it
	}
}

// mountsChangedLocked reports whether docket's mount table changed since
// the last look. A server copied the host's mounts when it started, so a
// mount made (or removed) on the host since, say a filesystem mounted over
// a directory to hide it, is not in its layout; a helper per call would
// see it. The first look opens the table and reports no change: no server
// exists before it.
func (s *Servers) mountsChangedLocked() bool {
	if s.mounts == nil {
		f, err := mounttable.Open()
		if err != nil {
			// Without the table no change can be seen: no server is kept.
			return true
		}
		s.mounts = f
		return false
	}
	return mounttable.Changed(s.mounts)
}

// retireAllLocked stops every server: the next call of each plan starts a
// new one. A command already started is not the server's (its init
// watches docket); a call not yet started sees its server gone and tries
// once more, on a new one.
func (s *Servers) retireAllLocked() {
	for k, sv := range s.byKey {
		delete(s.byKey, k)
		s.later(func() { _ = sv.close() })
	}
}

// startServer starts a server for base and waits until it has built the
// session's namespaces.
func startServer(req Request, binary string, base Spec) (*server, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox server: socketpair: %w", err)
	}
	// A command's argv and environment travel as one datagram.
	_ = unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, wire.MaxMessage+64<<10)
	peer := os.NewFile(uintptr(fds[1]), "sandbox-server")
	defer func() { _ = peer.Close() }() // the server has its copy; ours must go for EOF to mean the server is gone
	bin, err := openHelperBinary(req.Caps, binary)
	if err != nil {
		_ = unix.Close(fds[0])
		return nil, err
	}
	defer func() { _ = bin.Close() }() // read-only; the server has its copy
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		_ = unix.Close(fds[0])
		return nil, err
	}
	defer func() { _ = devnull.Close() }() // read-only
	args, err := proto.Args(binary, base, []string{"sandbox-server"})
	if err != nil {
		_ = unix.Close(fds[0])
		return nil, fmt.Errorf("sandbox server: %w", err)
	}
	sys := cloneAttrs(base.NS)
	sys.Setsid = true
	// The server's environment is empty: each command brings its own, and
	// docket's (with its API keys) has no business in a process that
	// outlives a call.
	cmd := &exec.Cmd{Path: proto.BinaryExecPath, Args: args, Env: []string{}, Dir: "/",
		ExtraFiles: []*os.File{peer, devnull, bin}, SysProcAttr: sys}
	if err := proto.CloexecFrom(3); err != nil {
		_ = unix.Close(fds[0])
		return nil, fmt.Errorf("sandbox server: %w", err)
	}
	// A root server starts from a thread whose bounding set holds only
	// what it needs (mounts, namespaces, dropping capabilities); in a user
	// namespace its capabilities count only there.
	if base.NS.User {
		err = cmd.Start()
	} else {
		var release func()
		release, err = startNarrowed(cmd)
		release()
	}
	if err != nil {
		_ = unix.Close(fds[0])
		return nil, fmt.Errorf("sandbox server: starting %s: %w", binary, err)
	}
	sv := &server{sock: fds[0], proc: cmd.Process, exited: make(chan struct{}), dead: make(chan struct{}),
		calls: map[uint64]*serverCall{}}
	go func() {
		_ = cmd.Wait() // its status says nothing a reply did not
		close(sv.exited)
	}()
	_ = peer.Close() // the server has its copy; ours must go for EOF to mean the server is gone
	var first proto.ServerReply
	buf := make([]byte, 64<<10)
	oob := make([]byte, wire.OOBSpace())
	got, err := wire.Recv(sv.sock, buf, oob, &first)
	closeFDs(got)
	switch {
	case err != nil:
		err = fmt.Errorf("sandbox server exited before it was ready: %w", err)
	case first.Kind == proto.ServerSetupError:
		err = fmt.Errorf("sandbox server setup failed (%s): %s", first.Layer, first.Error)
	case first.Kind != proto.ServerReady:
		err = fmt.Errorf("sandbox server: unexpected %q before ready", first.Kind)
	}
	if err != nil {
		_ = sv.close()
		return nil, err
	}
	go sv.read(buf, oob)
	return sv, nil
}

// read routes the server's replies to their calls until the socket fails.
func (sv *server) read(buf, oob []byte) {
	for {
		var r proto.ServerReply
		fds, err := wire.Recv(sv.sock, buf, oob, &r)
		if err != nil {
			sv.fail(fmt.Errorf("sandbox server: %w", err))
			return
		}
		sv.mu.Lock()
		c := sv.calls[r.ID]
		sv.mu.Unlock()
		if c == nil {
			closeFDs(fds)
			continue
		}
		m := serverMessage{reply: r, fds: fds}
		var ch chan serverMessage
		switch r.Kind {
		case proto.ServerStarted, proto.ServerSetupError:
			ch = c.started
		case proto.ServerDone:
			ch = c.done
		}
		if ch == nil {
			closeFDs(fds)
			continue
		}
		select {
		case ch <- m:
		default:
			closeFDs(fds) // a second reply of a kind: the first counts
		}
	}
}

func (sv *server) fail(err error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.err == nil {
		sv.err = err
		close(sv.dead)
	}
}

func (sv *server) alive() bool {
	select {
	case <-sv.dead:
		return false
	default:
		return true
	}
}

func (sv *server) use(n int) {
	sv.mu.Lock()
	sv.inflight += n
	sv.lastUse = time.Now()
	sv.mu.Unlock()
}

func (sv *server) deadErr() error {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.err
}

// send registers a call and sends the command.
func (sv *server) send(cmd proto.ServerCommand, fds []int) (uint64, *serverCall, error) {
	sv.mu.Lock()
	if sv.err != nil {
		err := sv.err
		sv.mu.Unlock()
		return 0, nil, err
	}
	sv.nextID++
	id := sv.nextID
	c := &serverCall{started: make(chan serverMessage, 1), done: make(chan serverMessage, 1)}
	sv.calls[id] = c
	sv.mu.Unlock()
	cmd.ID = id
	sv.sendMu.Lock()
	err := wire.Send(sv.sock, cmd, fds...)
	sv.sendMu.Unlock()
	if err != nil {
		sv.forget(id)
		err = fmt.Errorf("sandbox server: sending the command: %w", err)
		if !errors.Is(err, unix.EMSGSIZE) {
			sv.fail(err)
		}
		return 0, nil, err
	}
	return id, c, nil
}

func (sv *server) forget(id uint64) {
	sv.mu.Lock()
	delete(sv.calls, id)
	sv.mu.Unlock()
}

// close stops the server: its socket closes, it exits, and it is reaped
// (killed after a while if it does not go).
func (sv *server) close() error {
	sv.stopOnce.Do(func() {
		_ = unix.Shutdown(sv.sock, unix.SHUT_RDWR) // wakes the reader; the server reads EOF
		sv.fail(errors.New("sandbox server: stopped"))
		select {
		case <-sv.exited:
		case <-time.After(5 * time.Second):
			_ = sv.proc.Kill()
			<-sv.exited
		}
		_ = unix.Close(sv.sock) // a socket both sides are done with
	})
	return nil
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		_ = unix.Close(fd) // received and not used: nothing was written through it
	}
}

// pidfdSignal signals a process through its pidfd.
func pidfdSignal(fd int, sig syscall.Signal) error {
	return unix.PidfdSendSignal(fd, sig, nil, 0)
}

// waitStarted waits for a started (or refused) reply, or the server's death.
// It does not watch the call's context on purpose: the command is sent, so
// the server may start it at any moment, and only the started reply's pidfd
// lets the caller kill it; leaving early would leave it running unwatched.
// The server answers within its own set-up time, or dies and says so.
func waitStarted(sv *server, c *serverCall) (serverMessage, error) {
	select {
	case m := <-c.started:
		return m, nil
	case <-sv.dead:
		// A reply read just before the socket failed still counts.
		select {
		case m := <-c.started:
			return m, nil
		default:
		}
		return serverMessage{}, fmt.Errorf("sandbox server exited before the command started: %w", sv.deadErr())
	}
}
