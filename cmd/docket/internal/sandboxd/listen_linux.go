package sandboxd

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// ErrTaken is another daemon already serving the socket.
var ErrTaken = errors.New("sandbox daemon: another daemon holds the socket")

// Listener is the daemon's socket, held under a lock file so that one
// daemon serves it.
type Listener struct {
	fd   int
	lock *os.File
	path string
}

// Listen takes path's lock (path + ".lock", holding the daemon's pid) and
// listens there; ErrTaken when another daemon holds it.
func Listen(path string) (*Listener, error) {
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sandbox daemon: %w", err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		_ = lock.Close() // unlocked, unwritten
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrTaken
		}
		return nil, fmt.Errorf("sandbox daemon: lock %s: %w", path, err)
	}
	if err := lock.Truncate(0); err == nil {
		_, _ = lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0) // for people and tests: who serves
	}
	// A socket left by a daemon that died: under the lock, ours to replace.
	_ = os.Remove(path)
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		_ = lock.Close()
		return nil, fmt.Errorf("sandbox daemon: socket: %w", err)
	}
	old := unix.Umask(0o177)
	err = unix.Bind(fd, &unix.SockaddrUnix{Name: path})
	unix.Umask(old)
	if err == nil {
		err = unix.Listen(fd, 64)
	}
	if err != nil {
		_ = unix.Close(fd)
		_ = lock.Close()
		return nil, fmt.Errorf("sandbox daemon: listen on %s: %w", path, err)
	}
	return &Listener{fd: fd, lock: lock, path: path}, nil
}

// Fd is the listening socket, for polling.
func (l *Listener) Fd() int { return l.fd }

// Accept waits for the next caller.
func (l *Listener) Accept() (*Conn, error) {
	for {
		fd, _, err := unix.Accept4(l.fd, unix.SOCK_CLOEXEC)
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ECONNABORTED) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &Conn{fd: fd}, nil
	}
}

// Shutdown stops taking calls: a blocked Accept returns. Close must still
// follow, once Accept has returned.
func (l *Listener) Shutdown() { _ = unix.Shutdown(l.fd, unix.SHUT_RDWR) }

// Close removes the socket, then releases the lock: a caller after that
// finds no daemon and starts one.
func (l *Listener) Close() error {
	_ = os.Remove(l.path)
	err := unix.Close(l.fd)
	_ = l.lock.Close() // releases the flock
	return err
}

// Conn is one caller, on the daemon's side.
type Conn struct{ fd int }

// Check is id.CheckPeer on this caller.
func (c *Conn) Check(id *Identity) error { return id.CheckPeer(c.fd) }

// ReadRequest reads the call and the caller's stdout and stderr.
func (c *Conn) ReadRequest() (Request, [2]*os.File, error) {
	var req Request
	var files [2]*os.File
	fds, err := recv(c.fd, &req, 2)
	if err != nil {
		return req, files, err
	}
	if len(fds) != 2 {
		closeAll(fds)
		return req, files, fmt.Errorf("sandbox daemon: a request with %d streams, want stdout and stderr", len(fds))
	}
	if len(req.Args) == 0 || req.Args[0] != "sandbox" {
		closeAll(fds)
		return req, files, fmt.Errorf("sandbox daemon: %q is not a docket sandbox call", req.Args)
	}
	files[0] = os.NewFile(uintptr(fds[0]), "stdout")
	files[1] = os.NewFile(uintptr(fds[1]), "stderr")
	return req, files, nil
}

// WaitHangup returns when the caller shut down its side or went away: the
// caller was interrupted, and the call is to be stopped.
func (c *Conn) WaitHangup() {
	var v struct{}
	for {
		if _, err := recv(c.fd, &v, 0); err != nil {
			return
		}
	}
}

// Reply sends the result.
func (c *Conn) Reply(r Result) error { return send(c.fd, r) }

// Close closes the connection.
func (c *Conn) Close() error { return unix.Close(c.fd) }

// Shutdown ends both directions, which wakes a WaitHangup still reading.
func (c *Conn) Shutdown() { _ = unix.Shutdown(c.fd, unix.SHUT_RDWR) }
