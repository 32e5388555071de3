// Package mounttable tells whether the process's mount table changed: a
// mount can put a repository, or take a root, where a kept walk or a
// session's sandbox server saw none.
package mounttable

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Open opens /proc/self/mountinfo for Changed. Not
// through os.Open: that registers the descriptor with Go's network poller
// (it can be polled), and the poller's own look at it after a mount takes
// the one POLLPRI the kernel gives per change, so Changed would
// never see it. A blocking descriptor made into a File stays out of the
// poller.
func Open() (*os.File, error) {
	fd, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: "/proc/self/mountinfo", Err: err}
	}
	return os.NewFile(uintptr(fd), "/proc/self/mountinfo"), nil
}

// Changed reports whether the mount table of f (from Open) changed since f was opened or last asked (the
// kernel flags it POLLPRI once per change); an error counts as a change,
// since nothing can be known then.
func Changed(f *os.File) bool {
	fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLPRI}}
	for {
		_, err := unix.Poll(fds, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err != nil || fds[0].Revents&(unix.POLLERR|unix.POLLPRI|unix.POLLNVAL) != 0
	}
}
