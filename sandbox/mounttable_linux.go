package sandbox

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// openMountTable opens /proc/self/mountinfo for mountTableChanged. Not
// through os.Open: that registers the descriptor with Go's network poller
// (it can be polled), and the poller's own look at it after a mount takes
// the one POLLPRI the kernel gives per change, so mountTableChanged would
// never see it. A blocking descriptor made into a File stays out of the
// poller.
func openMountTable() (*os.File, error) {
	fd, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: "/proc/self/mountinfo", Err: err}
	}
	return os.NewFile(uintptr(fd), "/proc/self/mountinfo"), nil
}

// mountTableChanged reports whether the mount table of f (from
// openMountTable) changed since f was opened or last asked (the
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
