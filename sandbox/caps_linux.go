package sandbox

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// keptCaps are the capabilities a command run as root keeps: what
// ordinary file work and setuid-style tools need (Docker's default set,
// without MKNOD, NET_RAW and SETFCAP). Everything else, such as
// SYS_ADMIN, NET_ADMIN, SYS_MODULE, SYS_RAWIO, SYS_TIME, SYS_BOOT and
// SYS_PTRACE, is dropped from the bounding set, so not even a set-uid
// binary can get it back.
var keptCaps = [...]uintptr{
	unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_DAC_READ_SEARCH, unix.CAP_FOWNER,
	unix.CAP_FSETID, unix.CAP_KILL, unix.CAP_SETGID, unix.CAP_SETUID, unix.CAP_SETPCAP,
	unix.CAP_NET_BIND_SERVICE, unix.CAP_SYS_CHROOT, unix.CAP_AUDIT_WRITE,
}

// dropRootCaps limits this thread (the one that starts the command) to
// keptCaps. It matters for root: without a user namespace its capabilities
// would count on the host. Capabilities are per thread; the command is
// started from this locked one.
func dropRootCaps() error {
	var keep [2]uint32
	for _, c := range keptCaps {
		keep[c/32] |= 1 << (c % 32)
	}
	for c := uintptr(0); c < 64; c++ {
		if keep[c/32]&(1<<(c%32)) != 0 {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) {
				break // past the kernel's last capability
			}
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	for i := range data {
		data[i].Effective &= keep[i]
		data[i].Permitted &= keep[i]
		data[i].Inheritable = 0
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}
