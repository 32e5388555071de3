package sandbox

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// lockedSecurebits stop root from regaining capabilities by being root:
// no capabilities at execve for uid 0 (NOROOT), none kept or lost on uid
// changes (NO_SETUID_FIXUP, KEEP_CAPS), no ambient raise, each locked so
// the command cannot undo it.
const lockedSecurebits = secbitNoRoot | secbitNoRootLocked |
	secbitNoSetuidFixup | secbitNoSetuidFixupLocked |
	secbitKeepCapsLocked |
	secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLocked

// The securebits of linux/securebits.h (x/sys/unix does not name them).
const (
	secbitNoRoot                  = 1 << 0
	secbitNoRootLocked            = 1 << 1
	secbitNoSetuidFixup           = 1 << 2
	secbitNoSetuidFixupLocked     = 1 << 3
	secbitKeepCapsLocked          = 1 << 5
	secbitNoCapAmbientRaise       = 1 << 6
	secbitNoCapAmbientRaiseLocked = 1 << 7
)

// dropAllCaps leaves the calling thread with no capability in any set:
// bounding, permitted, effective, inheritable and ambient. The command is
// started from this thread (directly, or through the re-executed init,
// which is born single-threaded from it), so it and everything it starts
// hold none either; no_new_privs, set next, keeps set-uid and file
// capabilities from giving any back.
//
// The bounding set and the securebits need CAP_SETPCAP. A helper without
// it (not root, no user namespace) holds no capability to begin with; it
// empties what it can and reports bounded=false, and the caps layer is not
// claimed.
func dropAllCaps() (bounded bool, err error) {
	bounded = true
	for c := uintptr(0); c < 64; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the kernel's last capability
		}
		if errors.Is(err, unix.EPERM) {
			bounded = false
			break
		}
		if err != nil {
			return false, fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	if bounded {
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, lockedSecurebits, 0, 0, 0); err != nil {
			return false, fmt.Errorf("locking securebits: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return false, fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData // all zero: permitted, effective, inheritable
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return false, fmt.Errorf("capset: %w", err)
	}
	return bounded, nil
}

// holdsNoCaps reports whether the calling thread's permitted, effective and
// inheritable sets are empty (the ambient set is a subset of them).
func holdsNoCaps() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	for _, d := range data {
		if d.Permitted|d.Effective|d.Inheritable != 0 {
			return fmt.Errorf("still holds capabilities (permitted %#x, effective %#x)", data[0].Permitted, data[0].Effective)
		}
	}
	return nil
}
