package sandboxd

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ErrNotServed is a call the daemon did not take (none listens, it
// refused, the request is too big): nothing ran, and the caller runs the
// call itself.
var ErrNotServed = errors.New("sandbox daemon: not served")

// Call hands one `docket sandbox` call to the daemon at path and waits for
// its end. It is the wire's Go client, for tests and tools: the front
// binary that `make build` installs speaks the same wire in C
// (cmd/docket/front/front.c). Until the daemon has the request, a
// failure is ErrNotServed.
// After that, interrupt (when it fires) asks the daemon to stop the
// command, and a daemon that dies is an error: the command may have run.
func Call(path string, req Request, stdout, stderr *os.File, interrupt <-chan os.Signal) (int, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("%w: socket: %v", ErrNotServed, err)
	}
	defer func() { _ = unix.Close(fd) }() // a socket
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ECONNREFUSED) {
			return 0, fmt.Errorf("%w: no daemon listens: %v", ErrNotServed, err)
		}
		return 0, fmt.Errorf("%w: %v", ErrNotServed, err)
	}
	if err := send(fd, req, int(stdout.Fd()), int(stderr.Fd())); err != nil {
		return 0, fmt.Errorf("%w: %v", ErrNotServed, err)
	}
	type reply struct {
		r   Result
		err error
	}
	done := make(chan reply, 1)
	go func() {
		var r Result
		_, err := recv(fd, &r, 0)
		done <- reply{r, err}
	}()
	for {
		select {
		case <-interrupt:
			// The daemon reads the hang-up and stops the command; its
			// result still comes.
			_ = unix.Shutdown(fd, unix.SHUT_WR)
		case rep := <-done:
			switch {
			case rep.err != nil:
				return 0, fmt.Errorf("sandbox daemon: no result (it may have run the command): %w", rep.err)
			case rep.r.Refused != "":
				return 0, fmt.Errorf("%w: refused: %s", ErrNotServed, rep.r.Refused)
			}
			return rep.r.Code, nil
		}
	}
}
