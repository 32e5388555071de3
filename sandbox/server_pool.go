package sandbox

import (
	"errors"
	"os"
	"sync"
)

// Servers keeps a session's sandbox servers, one per plan: a helper that
// built the plan's mount, network, IPC and UTS namespaces once and starts
// each command from there, in a PID namespace, mount namespace, Landlock
// domain and seccomp filter of the command's own (docs/sandbox.md, "The
// sandbox server"). A command whose plan differs in anything the server
// built (mode, roots, network, filter) goes to another server, started on
// first use; a change of docket's mount table stops them all, so that no
// command sees an older layout than the host has. It is a Launcher: Run
// uses it for a sandboxed plan when it is Request.Launcher and the machine
// gives the strongest setup (root, or user namespaces); otherwise, and
// when a server cannot be started, the call goes to PerCall. The host's
// unix sockets are not part of what a server built (serverKey).
//
// The zero value is ready to use; Close stops every server.
type Servers struct {
	// Binary is the program started as a server; it must call helper.Main
	// when IsHelper(os.Args), and be built with cgo. Empty means the
	// running executable.
	Binary string

	// cleanups are the removals (stubs, cgroup leaves) and the
	// stops of servers dropped from byKey still running after their calls
	// returned; Close waits for them.
	cleanups sync.WaitGroup

	mu     sync.Mutex
	byKey  map[string]*server
	failed map[string]error
	closed bool
	// mounts is /proc/self/mountinfo, opened before the first server
	// started: it polls POLLPRI when docket's mount table changes, after
	// which the servers' layouts are out of date.
	mounts *os.File
}

// maxServers bounds the servers one session keeps; the least recently used
// idle one is stopped for a new plan beyond it.
const maxServers = 4

// errServersClosed is a run after Close.
var errServersClosed = errors.New("sandbox: the session's sandbox servers are closed")

// Close stops every server: each exits once its socket closes, after the
// commands it runs (whose inits watch docket, not the server) are left to
// end on their own.
func (s *Servers) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	list := make([]*server, 0, len(s.byKey))
	for _, sv := range s.byKey {
		list = append(list, sv)
	}
	s.byKey = nil
	s.closed = true
	if s.mounts != nil {
		_ = s.mounts.Close() // read-only
		s.mounts = nil
	}
	s.mu.Unlock()
	var errs []error
	for _, sv := range list {
		errs = append(errs, sv.close())
	}
	s.cleanups.Wait()
	return errors.Join(errs...)
}

// later runs f off the calling call's path; Close waits for it.
func (s *Servers) later(f func()) {
	s.cleanups.Add(1)
	go func() {
		defer s.cleanups.Done()
		f()
	}()
}
