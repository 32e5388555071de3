package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// The sandbox server and docket talk over a SOCK_SEQPACKET socket pair:
// one JSON message per datagram, descriptors attached as SCM_RIGHTS. Only
// docket and the server hold its ends; a command never has one (the
// server's end is closed in every init, docket's is close-on-exec).

// serverFD is the descriptor the server finds its end of the socket at.
const serverFD = 3

// serverCommand asks the server to run one command. Its descriptors, in
// order: stdin, stdout, stderr, the exit pipe's write end, then one
// cgroup file per Cgroups.
type serverCommand struct {
	ID   uint64   `json:"id"`
	Path string   `json:"path"`
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Cwd  string   `json:"cwd"`
	// Protected are bound read-only in the command's own mount namespace;
	// Scanned are those the git walk found (skipped if they vanished).
	Protected          []string   `json:"protected,omitempty"`
	Scanned            []string   `json:"scanned,omitempty"`
	Unseen             []string   `json:"unseen,omitempty"`
	UnixSockets        []string   `json:"unix_sockets,omitempty"`
	UnixSocketsPartial bool       `json:"unix_sockets_partial,omitempty"`
	GitScan            string     `json:"git_scan,omitempty"`
	Limits             limitsSpec `json:"limits"`
	Cgroups            int        `json:"cgroups,omitempty"`
	// NoLifeline asks the init not to end the command when docket goes
	// (lifelineDisabled); a server honours it only in the docketfault build.
	NoLifeline bool `json:"no_lifeline,omitempty"`
}

// Kinds of server replies.
const (
	// serverReady: the session's namespaces are built (first message).
	serverReady = "ready"
	// serverStarted: the command's init is confined and has its go; a
	// pidfd for it is attached. Layers are what it enforces.
	serverStarted = "started"
	// serverSetupError: the command (or the server) could not be
	// confined; the command never started.
	serverSetupError = "setup_error"
	// serverDone: the init was reaped; Status is its wait status.
	serverDone = "done"
)

// serverReply is one message from the server.
type serverReply struct {
	Kind   string   `json:"kind"`
	ID     uint64   `json:"id,omitempty"`
	Layers []string `json:"layers,omitempty"`
	Layer  string   `json:"layer,omitempty"`
	Error  string   `json:"error,omitempty"`
	Status int      `json:"status,omitempty"`
}

// maxServerMessage bounds one datagram: a command's argv and environment.
const maxServerMessage = 4 << 20

// maxServerFDs bounds the descriptors one message may carry.
const maxServerFDs = 16

// sendMessage writes v as one datagram with fds attached.
func sendMessage(sock int, v any, fds ...int) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	for {
		err = unix.Sendmsg(sock, b, oob, nil, 0)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// recvMessage reads one datagram into v and returns the descriptors it
// carried (close-on-exec). io.EOF-like: n == 0 with no error is the peer
// gone, reported as errPeerGone.
func recvMessage(sock int, buf, oob []byte, v any) ([]int, error) {
	var n, oobn, flags int
	var err error
	for {
		n, oobn, flags, _, err = unix.Recvmsg(sock, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	var fds []int
	if oobn > 0 {
		msgs, perr := unix.ParseSocketControlMessage(oob[:oobn])
		if perr != nil {
			return nil, fmt.Errorf("control message: %w", perr)
		}
		for i := range msgs {
			got, perr := unix.ParseUnixRights(&msgs[i])
			if perr == nil {
				fds = append(fds, got...)
			}
		}
	}
	closeAll := func() {
		for _, fd := range fds {
			_ = unix.Close(fd) // received and refused: nothing written through it
		}
	}
	if n == 0 && oobn == 0 {
		return nil, errPeerGone
	}
	if flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
		closeAll()
		return nil, errors.New("message truncated")
	}
	if err := json.Unmarshal(buf[:n], v); err != nil {
		closeAll()
		return nil, fmt.Errorf("message: %w", err)
	}
	return fds, nil
}

// errPeerGone is the other end of the socket closed.
var errPeerGone = errors.New("the other end closed the socket")
