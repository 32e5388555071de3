package sandbox

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// mountTableChanged reports whether the mount table of the open
// /proc/self/mountinfo f changed since f was opened or last asked (the
// kernel flags it POLLPRI once per change); an error counts as a change,
// since nothing can be known then.
func mountTableChanged(f *os.File) bool {
	fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLPRI}}
	for {
		_, err := unix.Poll(fds, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err != nil || fds[0].Revents&(unix.POLLERR|unix.POLLPRI|unix.POLLNVAL) != 0
	}
}
