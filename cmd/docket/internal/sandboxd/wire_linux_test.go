package sandboxd

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// FuzzReadRequest: whatever arrives on the socket, the daemon gets a
// request or an error, never a panic, and a request it accepts is a
// `docket sandbox` call with both streams.
func FuzzReadRequest(f *testing.F) {
	f.Add([]byte(`{"args":["sandbox","--","true"],"cwd":"/","env":["A=b"]}`), true)
	f.Add([]byte(`{"args":["exec","x"]}`), true)
	f.Add([]byte(`{"args":null}`), false)
	f.Add([]byte(`[1,2`), true)
	f.Fuzz(func(t *testing.T, msg []byte, withStreams bool) {
		if len(msg) == 0 || len(msg) > maxMessage {
			return // an empty datagram is a hang-up; a bigger one is never sent
		}
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = unix.Close(fds[0]); _ = unix.Close(fds[1]) }()
		_ = unix.SetsockoptInt(fds[1], unix.SOL_SOCKET, unix.SO_SNDBUF, 2*maxMessage)
		var oob []byte
		if withStreams {
			oob = unix.UnixRights(int(os.Stdout.Fd()), int(os.Stderr.Fd()))
		}
		if err := unix.Sendmsg(fds[1], msg, oob, nil, 0); err != nil {
			t.Skip(err)
		}
		c := &Conn{fd: fds[0]}
		req, files, err := c.ReadRequest()
		if err != nil {
			return
		}
		defer func() { _ = files[0].Close(); _ = files[1].Close() }()
		if len(req.Args) == 0 || req.Args[0] != "sandbox" || files[0] == nil || files[1] == nil {
			t.Fatalf("accepted %+v with streams %v", req, files)
		}
	})
}
