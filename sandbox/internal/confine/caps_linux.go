package confine

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/docket-engine/docket/sandbox/internal/proto"
	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// LockedSecurebits stop root from regaining capabilities by being root:
// no capabilities at execve for uid 0 (NOROOT), none kept or lost on uid
// changes (NO_SETUID_FIXUP, KEEP_CAPS), no ambient raise, each locked so
// the command cannot undo it.
const LockedSecurebits = secbitNoRoot | secbitNoRootLocked |
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

// maxBroadcastDrops bounds how many capabilities the helper drops from the
// bounding set of every thread, one all-thread broadcast each (psx, about
// 60-250 µs each here). With more (a user namespace, whose bounding set is
// always full) re-executing the helper from the dropped thread is cheaper.
const maxBroadcastDrops = len(proto.SetupCaps)

// dropCaps leaves the calling thread with no capability in any set:
// bounding, permitted, effective, inheritable and ambient, with the
// securebits locked. The command is started from this thread (directly,
// or from the init, which runs on it or is re-executed from it), so it and
// everything it starts hold none either; no_new_privs, set next, keeps
// set-uid and file capabilities from giving any back.
//
// With allThreads (the helper stays as init while the command runs) it
// also empties every set of every other thread when the bounding set is
// small enough to drop by broadcast; everyThread says whether it did. When
// it did not, the caller must re-exec from this thread to be rid of them.
//
// The bounding set and the securebits need CAP_SETPCAP. A helper without
// it (not root, no user namespace) holds no capability to begin with; it
// empties what it can and reports bounded=false, and the caps layer is not
// claimed.
func dropCaps(allThreads bool) (bounded, everyThread bool, err error) {
	present, err := proto.BoundingSet()
	if err != nil {
		return false, false, err
	}
	canSet := hasEffective(unix.CAP_SETPCAP)
	if canSet {
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, LockedSecurebits, 0, 0, 0); err != nil {
			return false, false, fmt.Errorf("locking securebits: %w", err)
		}
	}
	if allThreads && canSet && len(present) <= maxBroadcastDrops {
		everyThread = broadcastDrop(present) == nil
		// What is left (nothing, unless the broadcast failed) is dropped
		// on this thread below.
		if present, err = proto.BoundingSet(); err != nil {
			return false, false, err
		}
	}
	bounded = true
	for _, c := range present {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0)
		if errors.Is(err, unix.EPERM) {
			bounded = false
			break
		}
		if err != nil {
			return false, false, fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return false, false, fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData // all zero: permitted, effective, inheritable
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return false, false, fmt.Errorf("capset: %w", err)
	}
	return bounded, everyThread, nil
}

// broadcastDrop drops caps from the bounding set of every thread
// (CAP_SETPCAP last, since each drop needs it), then empties every
// thread's other sets (the ambient set goes with the permitted one).
func broadcastDrop(caps []uintptr) error {
	ordered := make([]uintptr, 0, len(caps))
	for _, c := range caps {
		if c != unix.CAP_SETPCAP {
			ordered = append(ordered, c)
		}
	}
	if len(ordered) < len(caps) {
		ordered = append(ordered, unix.CAP_SETPCAP)
	}
	for _, c := range ordered {
		if _, _, errno := psx.Syscall3(unix.SYS_PRCTL, unix.PR_CAPBSET_DROP, c, 0); errno != 0 {
			return fmt.Errorf("dropping capability %d on every thread: %w", c, errno)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	_, _, errno := psx.Syscall3(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	runtime.KeepAlive(&hdr)
	runtime.KeepAlive(&data)
	if errno != 0 {
		return fmt.Errorf("capset on every thread: %w", errno)
	}
	return nil
}

// hasEffective reports whether the calling thread has capability c in
// its effective set.
func hasEffective(c uintptr) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if unix.Capget(&hdr, &data[0]) != nil {
		return false
	}
	return data[c/32].Effective&(1<<(c%32)) != 0
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
