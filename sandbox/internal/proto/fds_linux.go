package proto

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// SetupCaps are the capabilities the first stage needs for its setup
// (mounts, then emptying the bounding set and locking the securebits).
// The parent starts a root helper from a thread whose bounding set holds
// only these (startNarrowed), so every thread of the helper has only these
// few to drop.
var SetupCaps = [...]uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}

// CloexecFrom marks every descriptor from fd up close-on-exec, so that the
// command gets only 0, 1 and 2 whatever the helper (or docket) inherited.
func CloexecFrom(fd int) error {
	err := unix.CloseRange(uint(fd), ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	// Before Linux 5.11: walk the descriptor table.
	entries, rerr := os.ReadDir("/proc/self/fd")
	if rerr != nil {
		return err
	}
	for _, e := range entries {
		if n, serr := strconv.Atoi(e.Name()); serr == nil && n >= fd {
			unix.CloseOnExec(n)
		}
	}
	return nil
}

// BoundingSet lists the capabilities in the calling thread's bounding set.
func BoundingSet() ([]uintptr, error) {
	var caps []uintptr
	for c := uintptr(0); c < 64; c++ {
		in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, c, 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the kernel's last capability
		}
		if err != nil {
			return nil, fmt.Errorf("reading the bounding set: %w", err)
		}
		if in == 1 {
			caps = append(caps, c)
		}
	}
	return caps, nil
}
