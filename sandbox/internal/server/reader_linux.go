package server

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/docket-engine/docket/sandbox/internal/proto"
	"github.com/docket-engine/docket/sandbox/internal/wire"
)

// Who reads docket's socket. A command read by Serve's loop is handed to
// the ready init's thread (the one that shares the init's mount namespace
// and binds the command's paths there) through a channel: a wake-up of a
// locked thread on every call's path. So the ready init's thread reads the
// socket itself while it waits, and the command it reads is its own. One
// goroutine at a time has the reading role (and the buffers that go with
// it): Serve's loop while no ready init waits, the ready init's thread
// otherwise; Serve's loop takes it back as soon as that thread has its
// command, so that commands sent meanwhile (parallel calls) are still
// read. Serve's loop waits in poll on the socket and an eventfd, through
// which a ready init asks for the role.

// readRole is the right to read docket's socket, with its buffers.
type readRole struct {
	buf, oob []byte
}

// roleBack is the role handed back to Serve's loop; gone when the reader
// found docket gone.
type roleBack struct {
	role *readRole
	gone bool
}

// isGone says whether a receive error means docket closed its end.
func isGone(err error) bool {
	return errors.Is(err, wire.ErrPeerGone) || errors.Is(err, unix.EBADF) || errors.Is(err, unix.ECONNRESET)
}

// serveLoop reads commands while Serve has the role, and hands the role
// to a ready init that asks for it. It returns once docket is gone.
func (sv *serverState) serveLoop(role *readRole) {
	pfds := []unix.PollFd{{Fd: int32(sv.sock), Events: unix.POLLIN}, {Fd: int32(sv.wake), Events: unix.POLLIN}}
	for {
		if r := sv.takeAsker(); r != nil {
			r.role <- role
			back := <-sv.back
			if back.gone {
				return
			}
			role = back.role
			continue
		}
		pfds[0].Revents, pfds[1].Revents = 0, 0
		if _, err := unix.Poll(pfds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			// Cannot wait on the eventfd: read as before, without handing
			// the role to anyone.
			sv.readLoop(role)
			return
		}
		if pfds[1].Revents&unix.POLLIN != 0 {
			var b [8]byte
			_, _ = unix.Read(sv.wake, b[:]) // only a wake-up: its count does not matter
		}
		if pfds[0].Revents != 0 {
			cmd, fds, err := sv.recv(role)
			if isGone(err) {
				return
			}
			if err == nil {
				sv.run(cmd, fds)
			}
		}
	}
}

// readLoop reads and runs commands until docket is gone.
func (sv *serverState) readLoop(role *readRole) {
	for {
		cmd, fds, err := sv.recv(role)
		if isGone(err) {
			return
		}
		if err == nil {
			sv.run(cmd, fds)
		}
	}
}

// recv reads one command; a malformed one is refused here.
func (sv *serverState) recv(role *readRole) (proto.ServerCommand, []int, error) {
	var cmd proto.ServerCommand
	fds, err := wire.Recv(sv.sock, role.buf, role.oob, &cmd)
	if err != nil && !isGone(err) {
		_ = sv.send(proto.ServerReply{Kind: proto.ServerSetupError, ID: cmd.ID, Layer: "server", Error: err.Error()})
	}
	return cmd, fds, err
}

// askRole has a ready init's thread, whose init is confined and waiting,
// ask Serve's loop for the reading role.
func (sv *serverState) askRole(r *readyInit) {
	sv.readyMu.Lock()
	if sv.ready == r {
		r.asks = true
	}
	sv.readyMu.Unlock()
	var one [8]byte
	one[0] = 1 // eventfd counters are host-endian; any nonzero value wakes
	_, _ = unix.Write(sv.wake, one[:])
}

// takeAsker takes the ready init out of the ready slot when it asked for
// the role: from here the command it reads is its own, and no other goes
// to it.
func (sv *serverState) takeAsker() *readyInit {
	sv.readyMu.Lock()
	defer sv.readyMu.Unlock()
	r := sv.ready
	if r == nil || !r.asks {
		return nil
	}
	sv.ready, sv.reading = nil, r
	return r
}

// readOwn reads, with the role, until a command the server can take comes
// (refusing the others), and hands the role back to Serve's loop. It
// returns nil when docket is gone.
func (sv *serverState) readOwn(role *readRole) *initJob {
	var job *initJob
	gone := false
	for job == nil && !gone {
		cmd, fds, err := sv.recv(role)
		switch {
		case isGone(err):
			gone = true
		case err != nil:
		default:
			spec, err := sv.commandSpec(cmd, len(fds))
			if err != nil {
				closeFDs(fds)
				_ = sv.send(proto.ServerReply{Kind: proto.ServerSetupError, ID: cmd.ID, Layer: "spec", Error: err.Error()})
				continue
			}
			job = newJob(cmd, spec, fds)
		}
	}
	sv.readyMu.Lock()
	sv.reading = nil
	sv.readyMu.Unlock()
	sv.back <- roleBack{role: role, gone: gone}
	return job
}
