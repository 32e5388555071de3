package wire

import (
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// MaxMessage bounds one datagram: a command's argv and environment.
const MaxMessage = 4 << 20

// MaxFDs bounds the descriptors one message may carry.
const MaxFDs = 16

// Send writes v as one datagram with fds attached.
func Send(sock int, v any, fds ...int) error {
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

// Recv reads one datagram into v and returns the descriptors it carried
// (close-on-exec). buf must hold MaxMessage bytes and oob OOBSpace. An
// empty read is the peer gone, reported as ErrPeerGone. A message cut
// short, or one that is not v's JSON, is an error, and the descriptors
// it carried are closed.
func Recv(sock int, buf, oob []byte, v any) ([]int, error) {
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
		return nil, ErrPeerGone
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

// ErrPeerGone is the other end of the socket closed.
var ErrPeerGone = errors.New("the other end closed the socket")

// OOBSpace is the control buffer Recv needs for MaxFDs descriptors.
func OOBSpace() int { return unix.CmsgSpace(MaxFDs * 4) }
