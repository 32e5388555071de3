package sandboxd

import (
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Request is one `docket sandbox` call: its arguments after the program
// name (starting with "sandbox"), and the caller's working directory and
// environment. The caller's stdout and stderr travel with it.
type Request struct {
	Args []string `json:"args"`
	Cwd  string   `json:"cwd"`
	Env  []string `json:"env"`
}

// Result is how the call ended. Refused, when set, says why the daemon did
// not run it: nothing ran, and the caller may run the call itself.
type Result struct {
	Code    int    `json:"code"`
	Refused string `json:"refused,omitempty"`
}

// maxMessage bounds a request: arguments and environment. A bigger one is
// not sent; the caller runs the call itself.
const maxMessage = 128 << 10

// send writes v as one datagram, with fds attached when given.
func send(sock int, v any, fds ...int) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(b) > maxMessage {
		return fmt.Errorf("sandbox daemon: a message of %d bytes, over %d", len(b), maxMessage)
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	for {
		err := unix.Sendmsg(sock, b, oob, nil, 0)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// recv reads one datagram into v and returns the fds that came with it
// (at most maxFDs; any more are closed). io.EOF-like: n == 0 is
// errClosed.
func recv(sock int, v any, maxFDs int) ([]int, error) {
	buf := make([]byte, maxMessage+1)
	oob := make([]byte, unix.CmsgSpace(4*maxFDs+4))
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
	fds, ferr := rights(oob[:oobn])
	if len(fds) > maxFDs {
		closeAll(fds[maxFDs:])
		fds = fds[:maxFDs]
	}
	switch {
	case ferr != nil:
		closeAll(fds)
		return nil, ferr
	case n == 0:
		closeAll(fds)
		return nil, errClosed
	case flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 || n > maxMessage:
		closeAll(fds)
		return nil, errors.New("sandbox daemon: a message cut short")
	}
	if err := json.Unmarshal(buf[:n], v); err != nil {
		closeAll(fds)
		return nil, fmt.Errorf("sandbox daemon: a message that is not JSON: %w", err)
	}
	return fds, nil
}

// errClosed is the other end having shut down its side.
var errClosed = errors.New("sandbox daemon: the other end closed")

func rights(oob []byte) ([]int, error) {
	if len(oob) == 0 {
		return nil, nil
	}
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, fmt.Errorf("sandbox daemon: control message: %w", err)
	}
	var fds []int
	for i := range msgs {
		r, err := unix.ParseUnixRights(&msgs[i])
		if err != nil {
			continue // not SCM_RIGHTS: nothing to close
		}
		fds = append(fds, r...)
	}
	return fds, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		_ = unix.Close(fd) // received, never used
	}
}
